// npm run bench:events — what recording events costs. Three parts:
// 1. creates: POST /api/v1/orders (2 items, Idempotency-Key) on this build (which records ORDER_CREATED in the
//    create's statement) and on the build before events (BENCH_BEFORE_DIST, required), in interleaved rounds;
//    per request the server's CPU and its PostgreSQL backends' CPU (from /proc), and the ratios within each
//    round. Goals: ≤ 1.1× Node CPU, ≤ 1.15× PostgreSQL CPU.
// 2. batch confirm: POST /api/v1/orders/batch/confirm of 100 orders on each build (one event per order on
//    this one), wall time per batch. Goal: ≤ 150 ms.
// 3. the numbering lock: many connections committing one event each, with the commit-time numbering (the
//    events table) and without it (a copy of the table whose sequence is taken at insert), interleaved:
//    commits per second and commit latency: what numbering at commit costs the commit.
// 4. the feed with BENCH_FEED_EVENTS (1,000,000) events stored (seeded once, set-based): a page of 100 from a
//    random position, unfiltered, by customer and by a rare type, latency p50/p95. Goal: p95 <= 20 ms.
// 5. servable lag: PATCHes at BENCH_LAG_RATE (100) per second while a follower polls the feed; for each,
//    the time from its answer (after its commit) until the follower saw its event. Goal: p95 <= 1 s.
// 6. followers: keyed creates with and without BENCH_FOLLOWERS (20) feed clients each polling 5 times a second,
//    interleaved rounds: the p95 of COMMIT itself on BENCH_COMMIT_PROBES (2) connections committing one
//    event each in a loop beside the creates, the mean number of transactions waiting on the numbering lock
//    (sampled every 5 ms), and the creates' own p95. The followers' pages are served by a server of their
//    own, pinned beside this runner at the lowest priority, so the writers' server does not also serve
//    them. Goal: the commit p95 and the waiters grow by <= 10 %.
// 7. endpoints (needs REDIS_URL): keyed creates on an `api`-role server (no worker: the fan-out runs
//    elsewhere) with 0 and with 50 subscribed endpoints, interleaved: CPU per request of the server and of
//    the database's backends. Goal: 50 endpoints <= 1.1x none.
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
const { signAccessToken } = require(path.join(root, 'dist/src/platform/auth/token-signer.js'));
const { databaseOptions } = require(path.join(root, 'dist/src/platform/database/database-options.js'));
const { runMigrationsLocked } = require(path.join(root, 'dist/src/platform/database/migrations-runner.js'));
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
const FEED_EVENTS = Number(process.env.BENCH_FEED_EVENTS ?? 1_000_000);
const FEED_PAGES = Number(process.env.BENCH_FEED_PAGES ?? 200);
const LAG_RATE = Number(process.env.BENCH_LAG_RATE ?? 100);
const LAG_SECONDS = Number(process.env.BENCH_LAG_SECONDS ?? 5);
/** BENCH_PARTS: which of the parts to run (default all). */
const PARTS = new Set(
  (process.env.BENCH_PARTS ?? 'creates,batch,lock,feed,lag,followers,endpoints').split(','),
);
const FOLLOWERS = Number(process.env.BENCH_FOLLOWERS ?? 20);
const COMMIT_PROBES = Number(process.env.BENCH_COMMIT_PROBES ?? 2);
const FOLLOWERS_CONTROL = process.env.BENCH_FOLLOWERS_CONTROL === '1';
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 50);
const part = async (name, run) => {
  if (!PARTS.has(name)) return undefined;
  const figures = await run();
  console.log(JSON.stringify({ [name]: figures }));
  return figures;
};
const DATABASE = process.env.BENCH_DATABASE_NAME ?? 'order_service_bench_events';
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
  // The feed's volume: events seeded set-based (numbered directly, the commit-time trigger off meanwhile),
  // 1,000 customers, one in a thousand a TASK_FAILED.
  const [{ count }] = await dataSource.query('SELECT count(*)::int AS count FROM events');
  if (count < FEED_EVENTS) {
    const started = Date.now();
    await dataSource.query('ALTER TABLE events DISABLE TRIGGER events_number_at_commit');
    await dataSource.query(
      `INSERT INTO events (sequence, type, occurred_at, order_id, task_id, customer_id, actor_id, data)
       SELECT nextval('events_sequence'),
              CASE WHEN g % 1000 = 0 THEN 'TASK_FAILED' ELSE (ARRAY['ORDER_CREATED','ORDER_UPDATED','ORDER_CONFIRMED'])[1 + g % 3] END,
              now() - make_interval(secs => ${FEED_EVENTS} - g),
              CASE WHEN g % 1000 = 0 THEN NULL ELSE gen_random_uuid() END,
              CASE WHEN g % 1000 = 0 THEN gen_random_uuid() END,
              ('00000000-0000-4000-9000-' || lpad(to_hex(1 + g % 1000), 12, '0'))::uuid, NULL,
              jsonb_build_object('orderId', gen_random_uuid(), 'status', 'CREATED', 'totalAmount', 30,
                'items', jsonb_build_array(jsonb_build_object('productId', gen_random_uuid(), 'quantity', 1,
                  'unitPrice', 10, 'productName', 'Product ' || g % 100)),
                'createdAt', '2026-11-26T10:00:00Z', 'updatedAt', '2026-11-26T10:00:00Z', 'version', 1)
       FROM generate_series(${count + 1}, ${FEED_EVENTS}) g`,
    );
    await dataSource.query('ALTER TABLE events ENABLE TRIGGER events_number_at_commit');
    await dataSource.query('VACUUM ANALYZE events');
    console.log(`seeded ${FEED_EVENTS - count} events in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  await dataSource.query('ANALYZE');
  await dataSource.destroy();
  return url.toString();
}

const databaseUrl = await prepareDatabase();
const adminAuth = {
  authorization: `Bearer ${await signAccessToken(SECRET, { sub: randomUUID(), roles: ['ADMIN'], ttlSeconds: 7200 })}`,
};
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

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)] * 10) / 10;
};
const cursorAt = (sequence) => Buffer.from(`seq:${sequence}`).toString('base64url');

/** Feed pages of 100 from random positions (one at a time), per filter: latency p50 and p95. */
async function feedPages(base) {
  // An empty page's cursor points past every event: where the feed ends now.
  const end = await (
    await fetch(`${base}/api/v1/events?customerId=${randomUUID()}`, { headers: adminAuth })
  ).json();
  const latest = Number(Buffer.from(end.nextCursor, 'base64url').toString().slice('seq:'.length));
  const filters = {
    unfiltered: () => '',
    customer: () => `&customerId=${uuid('9000', 1 + Math.floor(Math.random() * 1000))}`,
    rareType: () => '&type=TASK_FAILED',
  };
  const figures = {};
  for (const [name, filter] of Object.entries(filters)) {
    const times = [];
    for (let i = 0; i < FEED_PAGES; i += 1) {
      const at = Math.floor(Math.random() * Math.max(1, latest - 1000));
      const started = process.hrtime.bigint();
      const res = await fetch(`${base}/api/v1/events?size=100&cursor=${cursorAt(at)}${filter()}`, {
        headers: adminAuth,
      });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`feed page: ${res.status}`);
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    figures[name] = { p50Ms: percentile(times, 0.5), p95Ms: percentile(times, 0.95) };
  }
  return figures;
}

/** PATCHes at LAG_RATE per second while a follower polls the feed: answer-to-seen time per event. */
async function servableLag(base) {
  const orders = [];
  for (let i = 0; i < 20; i += 1)
    orders.push((await call(base, 'POST', '/api/v1/orders', JSON.parse(createBody))).orderId);
  let cursor = (
    await (await fetch(`${base}/api/v1/events?customerId=${randomUUID()}`, { headers: adminAuth })).json()
  ).nextCursor;
  const answered = new Map();
  const seen = new Map();
  let writing = true;
  const follower = (async () => {
    while (writing || seen.size < answered.size) {
      const page = await (
        await fetch(`${base}/api/v1/events?size=100&cursor=${cursor}&type=ORDER_UPDATED`, {
          headers: adminAuth,
        })
      ).json();
      const now = performance.now();
      for (const event of page.content)
        if (event.data.note?.startsWith('lag ')) seen.set(event.data.note, now);
      cursor = page.nextCursor;
      if (!page.hasNext) await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const started = performance.now();
  const writes = [];
  for (let n = 0; n < LAG_RATE * LAG_SECONDS; n += 1) {
    const due = started + (n * 1000) / LAG_RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const note = `lag ${n}`;
    writes.push(
      fetch(`${base}/api/v1/orders/${orders[n % orders.length]}`, {
        method: 'PATCH',
        headers: { ...customer, 'content-type': 'application/merge-patch+json' },
        body: JSON.stringify({ note }),
      }).then(async (res) => {
        await res.arrayBuffer();
        if (res.ok) answered.set(note, performance.now());
      }),
    );
  }
  await Promise.all(writes);
  writing = false;
  await follower;
  const lags = [...answered].map(([note, at]) => Math.max(0, seen.get(note) - at));
  return {
    writesPerSecond: LAG_RATE,
    writes: answered.size,
    p50Ms: percentile(lags, 0.5),
    p95Ms: percentile(lags, 0.95),
  };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Mean number of transactions waiting on the numbering lock while `work` runs (sampled every 5 ms). */
async function numberingLockWaiters(work) {
  let stop = false;
  let sum = 0;
  let samples = 0;
  const sampler = (async () => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    while (!stop) {
      const { rows } = await client.query(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND ((classid::bigint << 32) | objid::bigint) = 7305416350`,
      );
      sum += rows[0].n;
      samples += 1;
      await sleep(5);
    }
    await client.end();
  })();
  try {
    return { result: await work(), waiters: sum / Math.max(1, samples) };
  } finally {
    stop = true;
    await sampler;
  }
}

/** Keyed creates with and without FOLLOWERS feed clients polling 5 times a second each, interleaved. */
async function followersCase(target) {
  const port = benchPort(5);
  const feedServer = {
    base: `http://127.0.0.1:${port}`,
    // Beside the runner, yielding to it: its CPU is what separate machines would give it, so what the
    // writers see is what the followers do to the database.
    server: startServer(root, ['dist/src/main.js'], { ...serviceEnv, PORT: port }, [], '1', 19),
  };
  try {
    await waitUntilUp(`${feedServer.base}/api/v1/events?size=1`, adminAuth, feedServer.server);
    return await followersRounds(target, feedServer);
  } finally {
    await stopServer(feedServer.server);
  }
}

/**
 * While `work` runs, COMMIT_PROBES connections commit one event each in a loop, as a create does (the
 * numbering at commit, under the numbering lock): the COMMIT statement's own latency, p95.
 */
async function commitLatency(work) {
  let stop = false;
  const times = [];
  const probes = Array.from({ length: COMMIT_PROBES }, async () => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    while (!stop) {
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO events (type, order_id, customer_id, data)
         VALUES ('ORDER_UPDATED', gen_random_uuid(), $1, '{"probe":true}')`,
        [CUSTOMER],
      );
      const started = process.hrtime.bigint();
      await client.query('COMMIT');
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    await client.end();
  });
  try {
    return { result: await work(), commitP95Ms: percentile(times, 0.95) };
  } finally {
    stop = true;
    await Promise.all(probes);
  }
}

async function followersRounds(target, feedServer) {
  const runs = { without: [], with: [] };
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const variant of round % 2 === 0 ? ['without', 'with'] : ['with', 'without']) {
      let stop = false;
      const followers =
        variant === 'with'
          ? Array.from({ length: FOLLOWERS }, async () => {
              // Caught-up followers: from the feed's end (an empty filtered page points past every event).
              let cursor = (
                await (
                  await fetch(`${feedServer.base}/api/v1/events?customerId=${randomUUID()}`, {
                    headers: adminAuth,
                  })
                ).json()
              ).nextCursor;
              while (!stop) {
                // The control (BENCH_FOLLOWERS_CONTROL=1): as many requests of a read that is not the feed.
                const url = FOLLOWERS_CONTROL
                  ? `${feedServer.base}/api/v1/orders?size=20`
                  : `${feedServer.base}/api/v1/events?size=100&cursor=${cursor}`;
                const res = await fetch(url, { headers: adminAuth });
                const page = await res.json();
                if (!FOLLOWERS_CONTROL) cursor = page.nextCursor;
                await sleep(200);
              }
            })
          : [];
      const {
        result: { result, commitP95Ms },
        waiters,
      } = await numberingLockWaiters(() =>
        commitLatency(() =>
          measureRound({
            base: target.base,
            pid: target.server.pid,
            postgres,
            amount: CREATES,
            connections: CONNECTIONS,
            request: createRequest,
          }),
        ),
      );
      stop = true;
      await Promise.all(followers);
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`followers case: ${result.non2xx} non-2xx`);
      runs[variant].push({ p95Ms: result.p95Ms, commitP95Ms, waiters });
    }
  }
  // Rounds where nobody waited either way grew by nothing (ratio 1).
  const ratio = (metric) =>
    spread(
      runs.with.map((r, i) =>
        r[metric] === 0 && runs.without[i][metric] === 0 ? 1 : r[metric] / runs.without[i][metric],
      ),
      3,
    );
  return {
    followers: FOLLOWERS,
    pollsPerSecondEach: 5,
    ...Object.fromEntries(
      Object.entries(runs).map(([name, list]) => [
        name,
        {
          createP95Ms: spread(
            list.map((r) => r.p95Ms),
            1,
          ),
          commitP95Ms: spread(
            list.map((r) => r.commitP95Ms),
            2,
          ),
          meanLockWaiters: spread(
            list.map((r) => r.waiters),
            3,
          ),
        },
      ]),
    ),
    ratios: { createP95: ratio('p95Ms'), commitP95: ratio('commitP95Ms'), lockWaiters: ratio('waiters') },
  };
}

/** Keyed creates on an api-role server with 0 and with ENDPOINTS subscribed endpoints, interleaved. */
async function endpointsCase() {
  if (!process.env.REDIS_URL) return { skipped: 'needs REDIS_URL (an api-role server)' };
  const port = benchPort(4);
  const api = {
    base: `http://127.0.0.1:${port}`,
    server: startServer(root, ['dist/src/main.js'], {
      ...serviceEnv,
      PORT: port,
      APP_ROLE: 'api',
      REDIS_URL: process.env.REDIS_URL,
    }),
  };
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const runs = { none: [], subscribed: [] };
  try {
    await waitUntilUp(`${api.base}/api/v1/orders?size=1`, customer, api.server);
    await warmUp(api.base, createRequest);
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const variant of round % 2 === 0 ? ['none', 'subscribed'] : ['subscribed', 'none']) {
        await db.query("DELETE FROM webhook_endpoints WHERE description = 'bench'");
        if (variant === 'subscribed') {
          await db.query(
            `INSERT INTO webhook_endpoints (url, description, secret_sealed)
             SELECT 'https://receiver.invalid/' || g, 'bench', 'unused' FROM generate_series(1, $1) g`,
            [ENDPOINTS],
          );
        }
        const measured = await measureRound({
          base: api.base,
          pid: api.server.pid,
          postgres,
          amount: CREATES,
          connections: CONNECTIONS,
          request: createRequest,
        });
        if (measured.non2xx > 0 || measured.errors > 0)
          throw new Error(`endpoints case: ${measured.non2xx} non-2xx`);
        runs[variant].push(measured);
      }
    }
  } finally {
    await db.query("DELETE FROM webhook_endpoints WHERE description = 'bench'");
    await db.end();
    await stopServer(api.server);
  }
  const cpu = (r) => r.nodeUs + r.pgUs;
  return {
    endpoints: ENDPOINTS,
    none: {
      nodeCpuUs: spread(runs.none.map((r) => r.nodeUs)),
      postgresCpuUs: spread(runs.none.map((r) => r.pgUs)),
    },
    subscribed: {
      nodeCpuUs: spread(runs.subscribed.map((r) => r.nodeUs)),
      postgresCpuUs: spread(runs.subscribed.map((r) => r.pgUs)),
    },
    ratio: spread(
      runs.subscribed.map((r, i) => cpu(r) / cpu(runs.none[i])),
      3,
    ),
  };
}

let summary;
try {
  for (const target of targets) {
    await waitUntilUp(`${target.base}/api/v1/orders?size=1`, customer, target.server);
    await warmUp(target.base, createRequest);
  }
  const createFigures = await part('creates', creates);
  const batchFigures = await part('batch', batchConfirms);
  const lockFigures = await part('lock', numberingLock);
  const feedFigures = await part('feed', () => feedPages(targets[0].base));
  const lagFigures = await part('lag', () => servableLag(targets[0].base));
  const followerFigures = await part('followers', () => followersCase(targets[0]));
  const endpointFigures = await part('endpoints', endpointsCase);
  summary = {
    machine: `${os.cpus()[0].model}, ${os.cpus().length} cores, Node ${process.version}`,
    postgres: (await postgresAdmin.query('SHOW server_version')).rows[0].server_version,
    rounds: ROUNDS,
    connections: CONNECTIONS,
    redis: process.env.REDIS_URL ? 'on' : 'off',
    creates: { requestsPerRound: CREATES, ...createFigures },
    batchConfirm100: batchFigures,
    numberingLock: lockFigures,
    feedPage100: feedFigures && { events: FEED_EVENTS, ...feedFigures },
    servableLag: lagFigures,
    followers: followerFigures,
    endpoints: endpointFigures,
    goals: {
      creates: 'events/before: Node CPU <= 1.1x, PostgreSQL CPU <= 1.15x',
      batchConfirm100: '<= 150 ms',
      feedPage100: 'p95 <= 20 ms',
      servableLag: 'p95 <= 1000 ms at 100 changes/s',
      followers: 'with followers/without: commit p95 and numbering-lock waiters <= 1.1x',
      endpoints: `${ENDPOINTS} endpoints/none: API and database CPU per create <= 1.1x`,
    },
    met: {
      nodeCpu: createFigures && createFigures.ratios.nodeCpu.median <= 1.1,
      postgresCpu: createFigures && createFigures.ratios.postgresCpu.median <= 1.15,
      batchConfirm100: batchFigures && batchFigures.events.p95Ms <= 150,
      feedPage100: feedFigures && Object.values(feedFigures).every((f) => f.p95Ms <= 20),
      servableLag: lagFigures && lagFigures.p95Ms <= 1000,
      followers:
        followerFigures &&
        followerFigures.ratios.commitP95.median <= 1.1 &&
        followerFigures.ratios.lockWaiters.median <= 1.1,
      endpoints: endpointFigures?.ratio && endpointFigures.ratio.median <= 1.1,
    },
  };
} finally {
  await Promise.all(targets.map((t) => stopServer(t.server)));
  await postgresAdmin.end();
}
mkdirSync(path.join(root, 'bench/results'), { recursive: true });
writeFileSync(path.join(root, 'bench/results/events.json'), JSON.stringify(summary, null, 2));
console.log(JSON.stringify(summary, null, 2));
