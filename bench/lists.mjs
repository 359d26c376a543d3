// npm run bench:lists — order lists at scale: 1,000,000 orders with 3 items (one customer owns 2,000),
// latency in-process (the app runs inside this process, requests over loopback HTTP) and throughput at
// 20 connections, plus EXPLAIN of every supported shape (asserting no sequential scan on orders).
// Then the CPU a customer's page costs the service (Node and PostgreSQL, from /proc) against a bare
// Fastify + pg server, in interleaved rounds (bench/cpu-meter.mjs); BENCH_PROFILE=1 profiles the service.
// BENCH_POOLER=1 adds the service through PgBouncer (bench/pgbouncer.mjs) to those rounds, compared with the
// service on a direct connection. Needs PostgreSQL (BENCH_DATABASE_URL or DATABASE_URL); uses REDIS_URL when set.
import autocannon from 'autocannon';
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
const dist = (p) => require(path.join(root, 'dist/src', p));
const { signAccessToken } = dist('platform/auth/token-signer.js');
const { databaseOptions } = dist('platform/database/database-options.js');
const { runMigrationsLocked } = dist('platform/database/migrations-runner.js');
const { createHttpApp } = dist('bootstrap/http-app.js');
const { loadConfig } = dist('platform/config/app-config.js');
const { CursorCodec } = dist('platform/paging/cursor-codec.js');
const q = dist('modules/orders/persistence/order-list.sql.js');
const { DEFAULT_SORT } = dist('modules/orders/domain/order-list-criteria.js');
const { ORDER_SQL } = dist('modules/orders/persistence/order-json.sql.js');
const { DataSource } = require('typeorm');

const SERVER_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL;
if (!SERVER_URL) {
  console.error('bench:lists needs BENCH_DATABASE_URL or DATABASE_URL (a PostgreSQL server)');
  process.exit(1);
}
const ORDERS = Number(process.env.BENCH_ORDERS ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const SECRET = 'bench-secret-bench-secret-bench-secret-42';
/** Production mode needs a webhook secret key; nothing here stores a webhook secret. */
const WEBHOOK_SECRET_KEY = Buffer.alloc(32, 1).toString('base64');
const CUSTOMER = '00000000-0000-4000-9000-00000000ffff';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const profileFlags = process.env.BENCH_PROFILE
  ? ['--cpu-prof', `--cpu-prof-dir=${path.join(root, 'bench/results/profiles')}`]
  : [];
const uuidSql = (prefix, expr) => `('00000000-0000-4000-${prefix}-' || lpad(to_hex(${expr}), 12, '0'))::uuid`;

async function prepare() {
  const url = new URL(SERVER_URL);
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  if ((await admin.query("SELECT 1 FROM pg_database WHERE datname = 'order_service_lists'")).rowCount === 0) {
    await admin.query('CREATE DATABASE order_service_lists');
  }
  await admin.end();
  url.pathname = '/order_service_lists';
  const ds = await new DataSource(databaseOptions(url.toString())).initialize();
  await runMigrationsLocked(ds);
  const [{ count }] = await ds.query('SELECT count(*)::int AS count FROM orders');
  let seedSeconds = null;
  if (count < ORDERS) {
    const started = Date.now();
    const runner = ds.createQueryRunner();
    await runner.connect();
    await runner.query('TRUNCATE orders, order_items, products, users, order_status_counts CASCADE');
    // Bulk load without per-row triggers; the derived columns are then computed set-based.
    await runner.query('SET session_replication_role = replica');
    await runner.query(`INSERT INTO users (user_id, roles, region_id, segment)
      SELECT ${uuidSql('9000', 'g')}, '{CUSTOMER}', g % 90, (ARRAY['RETAIL','VIP','B2B'])[1 + g % 3] FROM generate_series(1, 50000) g`);
    await runner.query(
      `INSERT INTO users (user_id, roles, region_id, segment) VALUES ('${CUSTOMER}', '{CUSTOMER}', 77, 'VIP')`,
    );
    await runner.query(`INSERT INTO products (product_id, name, price, stock, status)
      SELECT ${uuidSql('8000', 'g')}, (ARRAY['Kettle','Mug','Teapot','Spoon','Chair','Lamp','Desk','Pan'])[1 + g % 8] || ' ' || g,
             (10 + g % 4990)::numeric(12,2), 1000000, 'ACTIVE' FROM generate_series(1, 5000) g`);
    await runner.query(`INSERT INTO orders (order_id, customer_id, status, created_at, updated_at, note, tracking_number)
      SELECT ${uuidSql('a000', 'g')},
             CASE WHEN g % 500 = 0 THEN '${CUSTOMER}'::uuid ELSE ${uuidSql('9000', '1 + g % 50000')} END,
             (ARRAY['CREATED','CONFIRMED','SHIPPED','DELIVERED','CANCELLED','REFUNDED'])[1 + (g * 7) % 6],
             timestamptz '2026-01-01' + make_interval(secs => g * 25),
             CASE WHEN g % 3 = 0 THEN timestamptz '2026-01-01' + make_interval(secs => g * 25 + 3600) END,
             CASE WHEN g % 10 = 0 THEN 'note ' || g || ' please call' END,
             CASE WHEN g % 4 = 0 THEN 'TRK' || g END
      FROM generate_series(1, ${ORDERS}) g`);
    await runner.query(`INSERT INTO order_items (order_id, product_id, product_name, unit_price, quantity, created_at)
      SELECT ${uuidSql('a000', 'g')}, p.product_id, p.name, p.price, 1 + (g + j) % 3, timestamptz '2026-01-01' + make_interval(secs => g * 25)
      FROM generate_series(1, ${ORDERS}) g CROSS JOIN generate_series(1, 3) j
      JOIN products p ON p.product_id = ${uuidSql('8000', '1 + (g * 7 + j * 13) % 5000')}`);
    await runner.query(`UPDATE orders o SET total_amount = s.total, search_text = lower(concat_ws(' ', o.note, o.tracking_number, s.names))
      FROM (SELECT order_id, sum(unit_price * quantity) AS total, string_agg(product_name, ' ' ORDER BY product_name) AS names
            FROM order_items GROUP BY order_id) s WHERE s.order_id = o.order_id`);
    await runner.query('SET session_replication_role = DEFAULT');
    await runner.query(
      `INSERT INTO order_status_counts (status, shard, n) SELECT status, 0, count(*) FROM orders GROUP BY status`,
    );
    await runner.query('VACUUM ANALYZE orders');
    await runner.query('VACUUM ANALYZE order_items');
    await runner.query('ANALYZE');
    await runner.release();
    seedSeconds = Math.round((Date.now() - started) / 1000);
    console.log(`seeded ${ORDERS} orders with 3 items in ${seedSeconds} s`);
  }
  return { ds, url: url.toString(), seedSeconds };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function latency(base, { method = 'GET', path: urlPath, headers, body }) {
  const times = [];
  let status = 0;
  for (let i = 0; i < SAMPLES + 10; i += 1) {
    const started = process.hrtime.bigint();
    const res = await fetch(base + urlPath, { method, headers, body });
    await res.arrayBuffer();
    status = res.status;
    if (i >= 10) times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  const r = (x) => Math.round(x * 10) / 10;
  return {
    status,
    p50: r(percentile(times, 50)),
    p95: r(percentile(times, 95)),
    p99: r(percentile(times, 99)),
  };
}

async function throughput(base, { method = 'GET', path: urlPath, headers, body }) {
  const result = await autocannon({
    url: base + urlPath,
    method,
    headers,
    body,
    connections: 20,
    duration: 8,
  });
  return Math.round(result['2xx'] / result.duration);
}

async function explain(ds, sql, params) {
  const [row] = await ds.query(`EXPLAIN (FORMAT JSON) ${sql}`, params);
  const plan = row['QUERY PLAN'][0].Plan;
  const nodes = [];
  const walk = (node) => {
    nodes.push(
      `${node['Node Type']}${node['Relation Name'] ? ` on ${node['Relation Name']}` : ''}${node['Index Name'] ? ` using ${node['Index Name']}` : ''}`,
    );
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(plan);
  const [text] = [await ds.query(`EXPLAIN ${sql}`, params)];
  return {
    nodes,
    seqScanOnOrders: nodes.some((n) => n.startsWith('Seq Scan on orders')),
    text: text.map((r) => r['QUERY PLAN']).join('\n'),
  };
}

const { ds, url, seedSeconds } = await prepare();
const config = loadConfig({
  ...process.env,
  DATABASE_URL: url,
  JWT_SECRET: SECRET,
  WEBHOOK_SECRET_KEY,
  RATE_LIMIT_LIMIT: '1000000',
  MIGRATIONS_RUN: 'false',
  // Requests still in flight when autocannon stops fail at app.close(); they are not part of the figures.
  LOG_LEVEL: 'fatal',
  NODE_ENV: 'production',
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
});
const app = await createHttpApp(config);
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${app.getHttpServer().address().port}`;
const customer = {
  authorization: `Bearer ${await signAccessToken(SECRET, { sub: CUSTOMER, roles: ['CUSTOMER'], ttlSeconds: 7200 })}`,
};
const admin = {
  authorization: `Bearer ${await signAccessToken(SECRET, { sub: randomUUID(), roles: ['ADMIN'], ttlSeconds: 7200 })}`,
};
const json = { 'content-type': 'application/json' };

// Cursors at depth N: keyset values of row N of the admin's default order, signed as the service would.
const codec = new CursorCodec(config.cursor.secret);
async function cursorAt(depth) {
  if (depth === 0) return '';
  const [row] = await ds.query(
    `SELECT created_at::text AS k0, order_id::text AS k1 FROM orders ORDER BY created_at DESC, order_id DESC OFFSET $1 LIMIT 1`,
    [depth - 1],
  );
  return codec.encode(
    { direction: 'next', values: [row.k0, row.k1] },
    CursorCodec.binding({ filter: {}, scope: {}, sort: DEFAULT_SORT }),
  );
}

const shapes = [
  {
    name: 'customer page 1',
    headers: customer,
    path: '/api/v1/orders',
    filter: {},
    scope: { customerId: CUSTOMER },
  },
  {
    name: 'customer filtered (status + dates + amounts)',
    headers: customer,
    path: '/api/v1/orders?status=CREATED&status=CONFIRMED&dateFrom=2026-01-01&dateTo=2026-12-31&amountFrom=100&amountTo=20000',
    filter: {
      statuses: ['CREATED', 'CONFIRMED'],
      dateFrom: '2026-01-01',
      dateTo: '2026-12-31',
      amountFrom: 100,
      amountTo: 20000,
    },
    scope: { customerId: CUSTOMER },
  },
  {
    name: 'customer q search',
    headers: customer,
    path: '/api/v1/orders?q=teapot',
    filter: { q: 'teapot' },
    scope: { customerId: CUSTOMER },
  },
  {
    name: 'customer POST /search',
    headers: { ...customer, ...json },
    method: 'POST',
    path: '/api/v1/orders/search',
    body: JSON.stringify({
      statuses: ['SHIPPED', 'DELIVERED'],
      totalAmount: { from: 50 },
      sort: [{ field: 'totalAmount', direction: 'DESC' }],
    }),
    filter: { statuses: ['SHIPPED', 'DELIVERED'], amountFrom: 50 },
    sort: [{ field: 'totalAmount', direction: 'desc' }],
    scope: { customerId: CUSTOMER },
  },
  {
    name: 'admin offset page 1',
    headers: admin,
    path: '/api/v1/orders?page=1',
    filter: {},
    scope: {},
    offset: 0,
  },
  {
    name: 'admin offset page 1,000',
    headers: admin,
    path: '/api/v1/orders?page=1000',
    filter: {},
    scope: {},
    offset: 19980,
  },
  {
    name: 'admin offset page 20,000',
    headers: admin,
    path: '/api/v1/orders?page=20000',
    filter: {},
    scope: {},
    offset: 399980,
  },
  {
    name: 'admin offset page 1 by status',
    headers: admin,
    path: '/api/v1/orders?status=SHIPPED',
    filter: { statuses: ['SHIPPED'] },
    scope: {},
  },
  {
    name: 'admin offset page 1 by customer',
    headers: admin,
    path: `/api/v1/orders?customerId=${CUSTOMER}`,
    filter: { customerIds: [CUSTOMER] },
    scope: {},
  },
];
for (const depth of [0, 1000, 20000]) {
  const cursor = await cursorAt(Math.min(depth * 20, ORDERS - 21));
  shapes.push({
    name: `admin cursor chunk at depth ${depth.toLocaleString('en')}`,
    headers: admin,
    path: `/api/v1/orders?cursor=${encodeURIComponent(cursor)}`,
    filter: {},
    scope: {},
    keyset: depth === 0 ? undefined : true,
  });
}

const results = [];
// BENCH_SHAPES=0 skips the latency and plan section (e.g. to iterate on the CPU comparison alone).
for (const shape of process.env.BENCH_SHAPES === '0' ? [] : shapes) {
  const lat = await latency(base, shape);
  const rps = await throughput(base, shape);
  // The statements the app runs for this shape (the repository's page and count).
  const sort = shape.sort ?? DEFAULT_SORT;
  const window = shape.keyset
    ? {
        limit: 21,
        after: { values: ['2026-06-01 00:00:00+00', '00000000-0000-4000-a000-000000000001'], forward: true },
      }
    : shape.path.includes('cursor=')
      ? { limit: 21 }
      : { limit: 20, offset: shape.offset ?? 0 };
  // One statement per page: the orders as v1 serves them and, for offset pages, the exact total (a scalar
  // subquery).
  const page =
    window.offset === undefined
      ? q.keysetPageStatement(shape.filter, shape.scope, sort, window, ORDER_SQL.body('v1'))
      : q.offsetPageStatement(shape.filter, shape.scope, sort, window, ORDER_SQL.body('v1'));
  const plan = await explain(ds, page.sql, page.values);
  results.push({ name: shape.name, status: lat.status, ...lat, rps, plan });
  console.log(
    `${shape.name}: ${lat.status} p50 ${lat.p50} ms, p95 ${lat.p95} ms, p99 ${lat.p99} ms, ${rps} req/s; seq scan on orders: ${plan.seqScanOnOrders}`,
  );
}
await app.close();
await ds.destroy();

// CPU per page: the service as its own process against the bare baseline (bench/baseline-server.mjs: the
// customer's page with items and the exact total in one statement), interleaved rounds of a fixed number
// of requests, both pinned to core 0 (this runner and autocannon should run on core 1: npm run bench:lists
// does that).
async function comparePages() {
  const postgresAdmin = new pg.Client({ connectionString: SERVER_URL });
  await postgresAdmin.connect();
  const postgres = new PostgresCpu(postgresAdmin, 'order_service_lists');
  const serviceEnv = {
    DATABASE_URL: url,
    NODE_ENV: 'production',
    JWT_SECRET: SECRET,
    WEBHOOK_SECRET_KEY,
    RATE_LIMIT_LIMIT: '1000000',
    MIGRATIONS_RUN: 'false',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: benchPort(12),
    // The api Deployment's role: the worker's pollers and processors (webhook deliveries, tasks) run in the
    // worker Deployment, not on the measured requests' process.
    APP_ROLE: 'api',
    // The memory settings of the api Deployment (BENCH_NODE_OPTIONS replaces its NODE_OPTIONS).
    ...deployedMemorySettings(root, 'deploy/k8s/base/api.yaml'),
  };
  const baselineServer = startServer(root, ['bench/baseline-server.mjs'], {
    DATABASE_URL: url,
    PORT: benchPort(11),
  });
  const serviceServer = startServer(root, ['dist/src/main.js'], serviceEnv, profileFlags);
  const targets = [
    {
      name: 'baseline',
      base: `http://127.0.0.1:${benchPort(11)}`,
      server: baselineServer,
      headers: {},
      path: `/api/v1/orders?customerId=${CUSTOMER}&size=20`,
    },
    {
      name: 'service',
      base: `http://127.0.0.1:${benchPort(12)}`,
      server: serviceServer,
      headers: customer,
      path: '/api/v1/orders?size=20',
    },
  ];
  // BENCH_POOLER=1: the service again, through PgBouncer in transaction mode.
  const pooler = poolerWanted() ? await startPooler(root, url, serviceEnv) : undefined;
  if (pooler) {
    const port = benchPort(18);
    const server = startServer(root, ['dist/src/main.js'], {
      ...serviceEnv,
      DATABASE_URL: pooler.url,
      DB_PREPARED_STATEMENTS: 'false',
      PORT: port,
    });
    targets.push({
      ...targets[1],
      name: 'service (PgBouncer)',
      base: `http://127.0.0.1:${port}`,
      server,
      poolerPid: pooler.pid,
      comparedWith: 'service',
    });
  }
  // BENCH_BEFORE_DIST: other builds, in the same rounds (bench/cpu-meter.mjs, otherBuilds).
  otherBuilds().forEach((build, i) => {
    const port = benchPort(13 + i);
    const server = startServer(root, [build.main], { ...serviceEnv, ...beforeMemorySettings(), PORT: port });
    targets.push({ ...targets[1], name: build.name, base: `http://127.0.0.1:${port}`, server });
  });
  // BENCH_NEST_FLOOR=controller|guarded: the baseline's page behind NestJS (bench/nest-floor-server.mjs), the
  // framework's share of the gap, in the same rounds.
  if (process.env.BENCH_NEST_FLOOR) {
    const floorServer = startServer(root, ['bench/nest-floor-server.mjs'], {
      DATABASE_URL: url,
      PORT: benchPort(19),
      NEST_FLOOR: process.env.BENCH_NEST_FLOOR,
      NODE_OPTIONS: serviceEnv.NODE_OPTIONS,
    });
    targets.push({
      ...targets[0],
      name: `nest floor (${process.env.BENCH_NEST_FLOOR})`,
      base: `http://127.0.0.1:${benchPort(19)}`,
      server: floorServer,
    });
  }
  for (const t of targets) Object.assign(t, { pid: t.server.pid, postgres });
  const scenario = {
    name: `GET a customer's page (size 20, items, exact total of ${(2000).toLocaleString('en')})`,
    amount: Number(process.env.BENCH_PAGES ?? 2000),
    connections: 20,
    request: (target) => ({ path: target.path, headers: target.headers }),
  };
  try {
    const spawnedAt = Date.now();
    for (const t of targets) await waitUntilUp(t.base + t.path, t.headers, t.server);
    await new Promise((r) => setTimeout(r, 2000));
    const idleRssMb = Object.fromEntries(targets.map((t) => [t.name, rssMb(t.pid)]));
    if (profileFlags.length > 0) {
      console.log(`profile: the load starts ${((Date.now() - spawnedAt) / 1000).toFixed(1)} s after start`);
    }
    for (const t of targets) await warmUp(t.base, () => scenario.request(t));
    const result = {
      name: scenario.name,
      requestsPerRound: scenario.amount,
      ...(await interleave({ rounds: ROUNDS, targets, scenario })),
      rssMb: { idle: idleRssMb, afterLoad: Object.fromEntries(targets.map((t) => [t.name, rssMb(t.pid)])) },
      goals: {
        nodeCpu: '<= 1.4x',
        postgresCpu: '<= 0.8x',
        pooler: 'through PgBouncer (BENCH_POOLER=1): within 1.25x of the service direct',
      },
    };
    console.log(JSON.stringify(result, null, 2));
    return result;
  } finally {
    await Promise.all(targets.map((t) => stopServer(t.server)));
    await pooler?.stop();
    await postgresAdmin.end();
  }
}
const cpuPerPage = process.env.BENCH_CPU === '0' ? undefined : await comparePages();

const summary = {
  machine: `${os.cpus()[0].model}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  orders: ORDERS,
  seedSeconds,
  samples: SAMPLES,
  results,
  cpuPerPage,
};
mkdirSync(path.join(root, 'bench/results'), { recursive: true });
writeFileSync(path.join(root, 'bench/results/lists.json'), JSON.stringify(summary, null, 2));
const common = results.filter(
  (r) => !r.name.startsWith('admin offset page 1,000') && !r.name.startsWith('admin offset page 20,000'),
);
const failures = common.filter((r) => r.plan.seqScanOnOrders);
if (failures.length > 0) {
  console.error(`sequential scan on orders in: ${failures.map((f) => f.name).join(', ')}`);
  process.exit(1);
}
