// npm run bench:events — what recording events costs. Three parts:
// 1. creates: POST /api/v1/orders (2 items, Idempotency-Key) on this build (which records ORDER_CREATED in the
//    create's statement) and on the build before events (BENCH_BEFORE_DIST, required), in interleaved rounds;
//    per request the server's CPU and its PostgreSQL backends' CPU (from /proc), and the ratios within each
//    round. Goals: ≤ 1.1× Node CPU, ≤ 1.15× PostgreSQL CPU.
// 2. batch confirm: POST /api/v1/orders/batch/confirm of 100 orders on each build (one event per order on
//    this one), wall time per batch. Goal: ≤ 150 ms.
// 3. the numbering lock: many connections committing one event each, with the commit-time numbering (the
//    events table) and without it (a copy of the table whose sequence is taken at insert), interleaved:
//    commits per second and commit latency, so the serialization the lock adds is visible.
// Servers run on core 0 (taskset), this runner on core 1. Needs PostgreSQL (BENCH_DATABASE_URL or
// DATABASE_URL); Redis via REDIS_URL.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import {
  benchPort,
  median,
  otherBuilds,
  PostgresCpu,
  spread,
  startServer,
  stopServer,
  waitUntilUp,
  warmUp,
  measureRound,
} from './cpu-meter.mjs';
import { deployedMemorySettings } from './deployed-memory-settings.mjs';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { signAccessToken } = require(path.join(root, 'dist/src/auth/token-signer.js'));
const { databaseOptions } = require(path.join(root, 'dist/src/database/database-options.js'));
const { runMigrationsLocked } = require(path.join(root, 'dist/src/database/migrations-runner.js'));
const { DataSource } = require('typeorm');

const SERVER_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL;
if (!SERVER_URL) {
  console.error('bench:events needs BENCH_DATABASE_URL or DATABASE_URL (a PostgreSQL server)');
  process.exit(1);
}
const [before] = otherBuilds();
if (!before) {
  console.error(
    'bench:events needs BENCH_BEFORE_DIST: the dist/ of the build before events, inside this checkout',
  );
  process.exit(1);
}
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CREATES = Number(process.env.BENCH_CREATES ?? 1000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 10);
const LOCK_SECONDS = Number(process.env.BENCH_LOCK_SECONDS ?? 3);
const LOCK_CONNECTIONS = Number(process.env.BENCH_LOCK_CONNECTIONS ?? 8);
const DATABASE = 'order_service_bench_events';
const SECRET = 'bench-secret-bench-secret-bench-secret-42';
const WEBHOOK_SECRET_KEY = Buffer.alloc(32, 1).toString('base64');
const uuid = (prefix, n) => `00000000-0000-4000-${prefix}-${n.toString(16).padStart(12, '0')}`;
const CUSTOMER = uuid('9000', 1);

async function prepareDatabase() {
  const url = new URL(SERVER_URL);
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE}`);
  await admin.end();
  url.pathname = `/${DATABASE}`;
  const dataSource = await new DataSource(databaseOptions(url.toString())).initialize();
  await runMigrationsLocked(dataSource);
  await dataSource.query(
    `INSERT INTO users (user_id, roles) VALUES ($1, '{CUSTOMER}') ON CONFLICT DO NOTHING`,
    [CUSTOMER],
  );
  await dataSource.query(
    `INSERT INTO products (product_id, name, price, stock, status)
     SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, 'Product ' || g, 10 + g, 1000000000, 'ACTIVE'
     FROM generate_series(1, 2) g ON CONFLICT DO NOTHING`,
  );
  // The numbering lock's control: the same table, its sequence taken at insert, no trigger.
  await dataSource.query('DROP TABLE IF EXISTS events_numbered_at_insert');
  await dataSource.query(
    `CREATE TABLE events_numbered_at_insert (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES)`,
  );
  await dataSource.query(
    "ALTER TABLE events_numbered_at_insert ALTER COLUMN sequence SET DEFAULT nextval('events_sequence')",
  );
  await dataSource.query('ANALYZE');
  await dataSource.destroy();
  return url.toString();
}

const databaseUrl = await prepareDatabase();
const customer = {
  authorization: `Bearer ${await signAccessToken(SECRET, { sub: CUSTOMER, roles: ['CUSTOMER'], ttlSeconds: 7200 })}`,
};
const postgresAdmin = new pg.Client({ connectionString: SERVER_URL });
await postgresAdmin.connect();
const postgres = new PostgresCpu(postgresAdmin, DATABASE);

const serviceEnv = {
  DATABASE_URL: databaseUrl,
  NODE_ENV: process.env.REDIS_URL ? 'production' : 'development',
  JWT_SECRET: SECRET,
  WEBHOOK_SECRET_KEY,
  RATE_LIMIT_LIMIT: '1000000',
  MIGRATIONS_RUN: 'false',
  LOG_LEVEL: 'warn',
  HOST: '127.0.0.1',
  ...deployedMemorySettings(root, 'deploy/k8s/base/api.yaml'),
};
const targets = [
  { name: 'events', main: 'dist/src/main.js', port: benchPort(2) },
  { name: before.name, main: before.main, port: benchPort(3) },
].map((target) => ({
  ...target,
  base: `http://127.0.0.1:${target.port}`,
  server: startServer(root, [target.main], { ...serviceEnv, PORT: target.port }),
}));

const createBody = JSON.stringify({
  items: [
    { productId: uuid('8000', 1), quantity: 1 },
    { productId: uuid('8000', 2), quantity: 2 },
  ],
});
const createRequest = () => ({
  method: 'POST',
  path: '/api/v1/orders',
  headers: { ...customer, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
  body: createBody,
});

async function call(base, method, url, body) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { ...customer, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Creates, per target, in interleaved rounds; ratios events/before within each round. */
async function creates() {
  const runs = Object.fromEntries(targets.map((t) => [t.name, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
      const measured = await measureRound({
        base: target.base,
        pid: target.server.pid,
        postgres,
        amount: CREATES,
        connections: CONNECTIONS,
        request: createRequest,
      });
      if (measured.non2xx > 0 || measured.errors > 0) {
        throw new Error(`creates on ${target.name}: ${measured.non2xx} non-2xx, ${measured.errors} errors`);
      }
      runs[target.name].push(measured);
    }
  }
  const [withEvents, without] = targets.map((t) => runs[t.name]);
  const ratio = (metric) =>
    spread(
      withEvents.map((r, i) => r[metric] / without[i][metric]),
      3,
    );
  return {
    ...Object.fromEntries(
      targets.map((t) => [
        t.name,
        {
          nodeCpuUsPerRequest: spread(runs[t.name].map((r) => r.nodeUs)),
          postgresCpuUsPerRequest: spread(runs[t.name].map((r) => r.pgUs)),
          requestsPerSecond: spread(runs[t.name].map((r) => r.rps)),
          p99Ms: spread(
            runs[t.name].map((r) => r.p99Ms),
            1,
          ),
        },
      ]),
    ),
    ratios: { nodeCpu: ratio('nodeUs'), postgresCpu: ratio('pgUs'), requestsPerSecond: ratio('rps') },
  };
}

/** Batch confirms of 100 fresh orders, one batch at a time, per target (interleaved). */
async function batchConfirms() {
  const times = Object.fromEntries(targets.map((t) => [t.name, []]));
  for (let batch = 0; batch < BATCHES; batch += 1) {
    for (const target of batch % 2 === 0 ? targets : [...targets].reverse()) {
      const created = await call(target.base, 'POST', '/api/v1/orders/batch', {
        items: Array.from({ length: 100 }, (_, i) => ({ productId: uuid('8000', 1 + (i % 2)), quantity: 1 })),
      });
      const items = created.results.map((r) => ({ orderId: r.orderId }));
      const started = process.hrtime.bigint();
      const confirmed = await call(target.base, 'POST', '/api/v1/orders/batch/confirm', { items });
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (confirmed.results.some((r) => r.status !== 'SUCCESS'))
        throw new Error('a batch confirm item failed');
      times[target.name].push(ms);
    }
  }
  return Object.fromEntries(
    targets.map((t) => {
      const sorted = [...times[t.name]].sort((a, b) => a - b);
      return [
        t.name,
        {
          msPerBatch: spread(times[t.name], 1),
          p95Ms: Math.round(sorted[Math.ceil(sorted.length * 0.95) - 1] * 10) / 10,
        },
      ];
    }),
  );
}

/** One event per transaction from many connections for `seconds`: commits per second and latency. */
async function commitLoad(table, seconds) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: LOCK_CONNECTIONS });
  const latencies = [];
  const deadline = Date.now() + seconds * 1000;
  const data = JSON.stringify({ bench: true, padding: 'x'.repeat(600) });
  await Promise.all(
    Array.from({ length: LOCK_CONNECTIONS }, async () => {
      const client = await pool.connect();
      try {
        while (Date.now() < deadline) {
          const started = process.hrtime.bigint();
          await client.query(
            `INSERT INTO ${table} (type, order_id, customer_id, data) VALUES ('ORDER_UPDATED', $1, $2, $3)`,
            [randomUUID(), CUSTOMER, data],
          );
          latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
        }
      } finally {
        client.release();
      }
    }),
  );
  await pool.end();
  const sorted = latencies.sort((a, b) => a - b);
  return {
    commitsPerSecond: latencies.length / seconds,
    p50Ms: median(sorted),
    p99Ms: sorted[Math.ceil(sorted.length * 0.99) - 1],
  };
}

async function numberingLock() {
  const runs = { atCommit: [], atInsert: [] };
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0 ? ['atCommit', 'atInsert'] : ['atInsert', 'atCommit'];
    for (const variant of order) {
      runs[variant].push(
        await commitLoad(variant === 'atCommit' ? 'events' : 'events_numbered_at_insert', LOCK_SECONDS),
      );
    }
  }
  const summarize = (list) => ({
    commitsPerSecond: spread(list.map((r) => r.commitsPerSecond)),
    p50Ms: spread(
      list.map((r) => r.p50Ms),
      2,
    ),
    p99Ms: spread(
      list.map((r) => r.p99Ms),
      2,
    ),
  });
  return {
    connections: LOCK_CONNECTIONS,
    numberedAtCommit: summarize(runs.atCommit),
    numberedAtInsert: summarize(runs.atInsert),
    commitsPerSecondRatio: spread(
      runs.atCommit.map((r, i) => r.commitsPerSecond / runs.atInsert[i].commitsPerSecond),
      2,
    ),
  };
}

let summary;
try {
  for (const target of targets) {
    await waitUntilUp(`${target.base}/api/v1/orders?size=1`, customer, target.server);
    await warmUp(target.base, createRequest);
  }
  const createFigures = await creates();
  console.log(JSON.stringify({ creates: createFigures }));
  const batchFigures = await batchConfirms();
  console.log(JSON.stringify({ batchConfirm: batchFigures }));
  const lockFigures = await numberingLock();
  console.log(JSON.stringify({ numberingLock: lockFigures }));
  summary = {
    machine: `${os.cpus()[0].model}, ${os.cpus().length} cores, Node ${process.version}`,
    postgres: (await postgresAdmin.query('SHOW server_version')).rows[0].server_version,
    rounds: ROUNDS,
    connections: CONNECTIONS,
    redis: process.env.REDIS_URL ? 'on' : 'off',
    creates: { requestsPerRound: CREATES, ...createFigures },
    batchConfirm100: batchFigures,
    numberingLock: lockFigures,
    goals: {
      creates: 'events/before: Node CPU <= 1.1x, PostgreSQL CPU <= 1.15x',
      batchConfirm100: '<= 150 ms',
    },
    met: {
      nodeCpu: createFigures.ratios.nodeCpu.median <= 1.1,
      postgresCpu: createFigures.ratios.postgresCpu.median <= 1.15,
      batchConfirm100: batchFigures.events.p95Ms <= 150,
    },
  };
} finally {
  await Promise.all(targets.map((t) => stopServer(t.server)));
  await postgresAdmin.end();
}
mkdirSync(path.join(root, 'bench/results'), { recursive: true });
writeFileSync(path.join(root, 'bench/results/events.json'), JSON.stringify(summary, null, 2));
console.log(JSON.stringify(summary, null, 2));
