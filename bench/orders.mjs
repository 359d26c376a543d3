// npm run bench:orders — the service against a bare Fastify + pg baseline on the same seeded data
// (100,000 orders with 3 items), both running, loaded in interleaved rounds of a fixed number of requests.
// Reports per request the server's CPU and its PostgreSQL backends' CPU (from /proc), requests per second,
// and the service/baseline ratios within each round (median and range). Servers run on core 0 (taskset),
// this runner and autocannon on core 1. Needs PostgreSQL (BENCH_DATABASE_URL or DATABASE_URL); Redis via
// REDIS_URL. BENCH_PROFILE=1 writes a CPU profile of the service to bench/results/profiles/ (BENCH_PROFILE=before:
// of the `before` build instead). BENCH_POOLER=1 adds the service through PgBouncer (bench/pgbouncer.mjs) to
// the same rounds, compared with the service on a direct connection.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import {
  benchPort,
  interleave,
  otherBuilds,
  PostgresCpu,
  rssMb,
  startServer,
  stopServer,
  waitUntilUp,
  warmUp,
} from './cpu-meter.mjs';
import { beforeMemorySettings, deployedMemorySettings } from './deployed-memory-settings.mjs';
import { poolerWanted, startPooler } from './pgbouncer.mjs';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { signAccessToken } = require(path.join(root, 'dist/src/platform/auth/token-signer.js'));
const { databaseOptions } = require(path.join(root, 'dist/src/platform/database/database-options.js'));
const { runMigrationsLocked } = require(path.join(root, 'dist/src/platform/database/migrations-runner.js'));
const { DataSource } = require('typeorm');

const SERVER_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL;
if (!SERVER_URL) {
  console.error('bench:orders needs BENCH_DATABASE_URL or DATABASE_URL (a PostgreSQL server)');
  process.exit(1);
}
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const READS = Number(process.env.BENCH_READS ?? 5000);
const CREATES = Number(process.env.BENCH_CREATES ?? 1000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const ORDERS = 100_000;
const SECRET = 'bench-secret-bench-secret-bench-secret-42';
/** Production mode needs a webhook secret key; nothing here stores a webhook secret. */
const WEBHOOK_SECRET_KEY = Buffer.alloc(32, 1).toString('base64');
const uuid = (prefix, n) => `00000000-0000-4000-${prefix}-${n.toString(16).padStart(12, '0')}`;

async function prepareDatabase() {
  const url = new URL(SERVER_URL);
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = 'order_service_bench'");
  if (exists.rowCount === 0) await admin.query('CREATE DATABASE order_service_bench');
  await admin.end();
  url.pathname = '/order_service_bench';
  const dataSource = await new DataSource(databaseOptions(url.toString())).initialize();
  await runMigrationsLocked(dataSource);
  const [{ count }] = await dataSource.query('SELECT count(*)::int AS count FROM orders');
  if (count < ORDERS) {
    const started = Date.now();
    await dataSource
      .query(`TRUNCATE orders, order_items, products, users, idempotency_keys CASCADE`)
      .catch(() => dataSource.query('TRUNCATE orders, order_items, products, users CASCADE'));
    await dataSource.query(
      `INSERT INTO users (user_id, roles) SELECT ('00000000-0000-4000-9000-' || lpad(to_hex(g), 12, '0'))::uuid, '{CUSTOMER}'
       FROM generate_series(1, 1000) g`,
    );
    await dataSource.query(
      `INSERT INTO products (product_id, name, price, stock, status)
       SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, 'Product ' || g, (10 + g % 4990)::numeric(12,2), 1000000000, 'ACTIVE'
       FROM generate_series(1, 1000) g`,
    );
    await dataSource.query(
      `INSERT INTO orders (order_id, customer_id, status, created_at, delivery_street_name, delivery_zip_code, note)
       SELECT ('00000000-0000-4000-a000-' || lpad(to_hex(g), 12, '0'))::uuid,
              ('00000000-0000-4000-9000-' || lpad(to_hex(1 + g % 1000), 12, '0'))::uuid,
              (ARRAY['CREATED','CONFIRMED','SHIPPED','DELIVERED','CANCELLED'])[1 + g % 5],
              now() - make_interval(secs => g), 'Street ' || g, '1' || lpad((g % 100000)::text, 5, '0'), 'order ' || g
       FROM generate_series(1, ${ORDERS}) g`,
    );
    await dataSource.query(
      `INSERT INTO order_items (order_id, product_id, product_name, unit_price, quantity)
       SELECT ('00000000-0000-4000-a000-' || lpad(to_hex(g), 12, '0'))::uuid, p.product_id, p.name, p.price, 1 + (g + j) % 3
       FROM generate_series(1, ${ORDERS}) g CROSS JOIN generate_series(1, 3) j
       JOIN products p ON p.product_id = ('00000000-0000-4000-8000-' || lpad(to_hex(1 + (g * 7 + j * 13) % 1000), 12, '0'))::uuid`,
    );
    await dataSource.query(
      `UPDATE orders o SET total_amount = s.total FROM
         (SELECT order_id, sum(unit_price * quantity) AS total FROM order_items GROUP BY order_id) s
       WHERE s.order_id = o.order_id`,
    );
    await dataSource.query('ANALYZE');
    console.log(`seeded ${ORDERS} orders in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  await dataSource.destroy();
  return url.toString();
}

const databaseUrl = await prepareDatabase();
const admin = {
  authorization: `Bearer ${await signAccessToken(SECRET, { sub: randomUUID(), roles: ['ADMIN'], ttlSeconds: 7200 })}`,
};
const customer = {
  authorization: `Bearer ${await signAccessToken(SECRET, { sub: uuid('9000', 1), roles: ['CUSTOMER'], ttlSeconds: 7200 })}`,
};
const profileFlags = process.env.BENCH_PROFILE
  ? ['--cpu-prof', `--cpu-prof-dir=${path.join(root, 'bench/results/profiles')}`]
  : [];

const postgresAdmin = new pg.Client({ connectionString: SERVER_URL });
await postgresAdmin.connect();
const postgres = new PostgresCpu(postgresAdmin, 'order_service_bench');

const serviceEnv = {
  DATABASE_URL: databaseUrl,
  // Production refuses to start without Redis; without REDIS_URL the run measures the in-memory counters
  // (the cost of the shared rate limit alone, compared with a run with Redis), with the docs routes loaded.
  NODE_ENV: process.env.REDIS_URL ? 'production' : 'development',
  JWT_SECRET: SECRET,
  WEBHOOK_SECRET_KEY,
  RATE_LIMIT_LIMIT: '1000000',
  MIGRATIONS_RUN: 'false',
  LOG_LEVEL: 'warn',
  HOST: '127.0.0.1',
  PORT: benchPort(2),
  // The api Deployment's role: the worker's pollers and processors (webhook deliveries, tasks) run in the
  // worker Deployment, not on the measured requests' process.
  APP_ROLE: 'api',
  // The memory settings of the api Deployment (BENCH_NODE_OPTIONS replaces its NODE_OPTIONS).
  ...deployedMemorySettings(root, 'deploy/k8s/base/api.yaml'),
};
// BENCH_POOLER=1: the service again, through PgBouncer in transaction mode (started first: a failure to
// start it leaves no server behind).
const pooler = poolerWanted() ? await startPooler(root, databaseUrl, serviceEnv) : undefined;
const baselineServer = startServer(root, ['bench/baseline-server.mjs'], {
  DATABASE_URL: databaseUrl,
  PORT: benchPort(1),
});
// BENCH_PROFILE=<name of another build>: profile that build instead of the service.
const profiled =
  process.env.BENCH_PROFILE && process.env.BENCH_PROFILE !== '1' ? process.env.BENCH_PROFILE : 'service';
const serviceServer = startServer(
  root,
  ['dist/src/main.js'],
  serviceEnv,
  profiled === 'service' ? profileFlags : [],
);
const pooledServer = pooler
  ? startServer(root, ['dist/src/main.js'], {
      ...serviceEnv,
      DATABASE_URL: pooler.url,
      DB_PREPARED_STATEMENTS: 'false',
      PORT: benchPort(8),
    })
  : undefined;
// BENCH_BEFORE_DIST: other builds, in the same rounds (bench/cpu-meter.mjs, otherBuilds).
const others = otherBuilds().map((build, i) => ({
  ...build,
  port: benchPort(3 + i),
  server: startServer(
    root,
    [build.main],
    { ...serviceEnv, ...beforeMemorySettings(), PORT: benchPort(3 + i) },
    profiled === build.name ? profileFlags : [],
  ),
}));
// BENCH_NEST_FLOOR=controller|guarded (reads only): the baseline's read behind NestJS, as `nest floor`
// (bench/nest-floor-server.mjs): the framework's share of the gap, measured in the same rounds.
const nestFloor = process.env.BENCH_NEST_FLOOR;
if (nestFloor && process.env.BENCH_SCENARIOS !== 'reads') {
  console.error('BENCH_NEST_FLOOR serves reads only: run it with BENCH_SCENARIOS=reads');
  process.exit(2);
}
const nestFloorServer = nestFloor
  ? startServer(root, ['bench/nest-floor-server.mjs'], {
      DATABASE_URL: databaseUrl,
      PORT: benchPort(9),
      NEST_FLOOR: nestFloor,
      NODE_OPTIONS: serviceEnv.NODE_OPTIONS,
    })
  : undefined;
const targets = [
  {
    name: 'baseline',
    base: `http://127.0.0.1:${benchPort(1)}`,
    pid: baselineServer.pid,
    server: baselineServer,
    postgres,
    auth: { admin: {}, customer: {} },
  },
  {
    name: 'service',
    base: `http://127.0.0.1:${benchPort(2)}`,
    pid: serviceServer.pid,
    server: serviceServer,
    postgres,
    auth: { admin, customer },
  },
];
for (const other of others) {
  targets.push({
    ...targets[1],
    name: other.name,
    base: `http://127.0.0.1:${other.port}`,
    pid: other.server.pid,
    server: other.server,
  });
}

if (pooledServer) {
  targets.push({
    ...targets[1],
    name: 'service (PgBouncer)',
    base: `http://127.0.0.1:${benchPort(8)}`,
    pid: pooledServer.pid,
    server: pooledServer,
    poolerPid: pooler.pid,
    comparedWith: 'service',
  });
}

if (nestFloorServer) {
  targets.push({
    ...targets[0],
    name: `nest floor (${nestFloor})`,
    base: `http://127.0.0.1:${benchPort(9)}`,
    pid: nestFloorServer.pid,
    server: nestFloorServer,
  });
}

const readIds = Array.from({ length: 5000 }, (_, i) => uuid('a000', 1 + ((i * 7919) % ORDERS)));
const createBody = JSON.stringify({
  customerId: uuid('9000', 1),
  items: [
    { productId: uuid('8000', 1), quantity: 1 },
    { productId: uuid('8000', 2), quantity: 2 },
  ],
});
const scenarios = {
  reads: {
    name: 'GET /api/v1/orders/{orderId}',
    amount: READS,
    connections: CONNECTIONS,
    request: (target, n) => ({
      path: `/api/v1/orders/${readIds[n % readIds.length]}`,
      headers: target.auth.admin,
    }),
  },
  creates: {
    name: 'POST /api/v1/orders (2 items, Idempotency-Key)',
    amount: CREATES,
    connections: CONNECTIONS,
    request: (target) => ({
      method: 'POST',
      path: '/api/v1/orders',
      headers: {
        ...target.auth.customer,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      body: createBody,
    }),
  },
};

let summary;
const spawnedAt = Date.now();
try {
  for (const target of targets) {
    await waitUntilUp(`${target.base}/api/v1/orders/${uuid('a000', 1)}`, target.auth.admin, target.server);
  }
  // Idle: started, one request served, nothing else loaded yet.
  await new Promise((r) => setTimeout(r, 2000));
  const idleRssMb = Object.fromEntries(targets.map((t) => [t.name, rssMb(t.pid)]));
  // BENCH_SCENARIOS=reads (or creates) runs one of them, e.g. to profile it alone.
  const chosen = Object.entries(scenarios).filter(([key]) =>
    (process.env.BENCH_SCENARIOS ?? 'reads,creates').split(',').includes(key),
  );
  if (profileFlags.length > 0) {
    console.log(`profile: the load starts ${((Date.now() - spawnedAt) / 1000).toFixed(1)} s after start`);
  }
  for (const target of targets) {
    for (const [, scenario] of chosen) await warmUp(target.base, (n) => scenario.request(target, n));
  }
  const results = {};
  for (const [key, scenario] of chosen) {
    results[key] = {
      name: scenario.name,
      requestsPerRound: scenario.amount,
      ...(await interleave({ rounds: ROUNDS, targets, scenario })),
    };
    console.log(JSON.stringify(results[key]));
  }
  summary = {
    machine: `${os.cpus()[0].model}, ${os.cpus().length} cores, Node ${process.version}`,
    rounds: ROUNDS,
    connections: CONNECTIONS,
    redis: process.env.REDIS_URL ? 'on' : 'off (in-memory counters)',
    serviceNodeOptions: serviceEnv.NODE_OPTIONS,
    serviceMallocArenaMax: serviceEnv.MALLOC_ARENA_MAX,
    ...results,
    rssMb: {
      idle: idleRssMb,
      afterLoad: Object.fromEntries(targets.map((t) => [t.name, rssMb(t.pid)])),
    },
    goals: {
      reads: 'Node CPU <= 1.8x, PostgreSQL CPU <= 0.55x the baseline',
      creates: 'req/s >= 0.9x, Node CPU <= 2.2x the baseline',
      pooler: 'through PgBouncer (BENCH_POOLER=1): each ratio within 1.25x of the service direct',
      serviceRssMb: 'on Node 24: idle <= 135, after load <= 170',
    },
  };
} finally {
  await Promise.all(targets.map((t) => stopServer(t.server)));
  await pooler?.stop();
  await postgresAdmin.end();
}
mkdirSync(path.join(root, 'bench/results'), { recursive: true });
writeFileSync(path.join(root, 'bench/results/orders.json'), JSON.stringify(summary, null, 2));
console.log(JSON.stringify(summary, null, 2));
