// npm run bench:orders — the service against a bare Fastify + pg baseline on the same seeded data
// (100,000 orders with 3 items), loaded one after the other. Servers run on core 0 (taskset), this runner
// and autocannon on core 1. Needs PostgreSQL (BENCH_DATABASE_URL or DATABASE_URL); Redis via REDIS_URL.
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { signAccessToken } = require(path.join(root, 'dist/src/auth/token-signer.js'));
const { databaseOptions } = require(path.join(root, 'dist/src/database/database-options.js'));
const { runMigrationsLocked } = require(path.join(root, 'dist/src/database/migrations-runner.js'));
const { DataSource } = require('typeorm');

const SERVER_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL;
if (!SERVER_URL) {
  console.error('bench:orders needs BENCH_DATABASE_URL or DATABASE_URL (a PostgreSQL server)');
  process.exit(1);
}
const DURATION = Number(process.env.BENCH_DURATION ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const ORDERS = 100_000;
const SECRET = 'bench-secret-bench-secret-bench-secret-42';
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

function startServer(label, args, env) {
  const child = spawn('taskset', ['-c', '0', process.execPath, ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  child.label = label;
  return child;
}

async function waitUntilUp(url) {
  for (let i = 0; i < 200; i += 1) {
    try {
      const res = await fetch(url);
      if (res.status < 500) return;
    } catch {
      // not yet listening
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

function rssMb(pid) {
  // taskset execs node in place, so the child's pid is the server's.
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

async function load(name, base, { method, headers, body, pathFor, idempotent }) {
  const ids = pathFor;
  let n = 0;
  const options = {
    url: base,
    connections: CONNECTIONS,
    duration: DURATION,
    requests: [
      {
        method,
        setupRequest: (req) => {
          req.path = ids ? ids(n++) : '/api/v1/orders';
          req.headers = { ...headers, ...(idempotent ? { 'idempotency-key': randomUUID() } : {}) };
          if (body) req.body = body;
          return req;
        },
      },
    ],
  };
  await autocannon({ ...options, duration: 3 }); // warm-up
  const result = await autocannon(options);
  const ok = result['2xx'];
  return {
    name,
    requestsPerSecond: Math.round(ok / result.duration),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

async function measure(label, args, env, port, auth) {
  const server = startServer(label, args, { ...env, PORT: String(port) });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitUntilUp(`${base}/api/v1/orders/${uuid('a000', 1)}`);
    const readIds = Array.from({ length: 5000 }, (_, i) => uuid('a000', 1 + ((i * 7919) % ORDERS)));
    const reads = await load(`${label} GET /api/v1/orders/{orderId}`, base, {
      method: 'GET',
      headers: auth.admin,
      pathFor: (n) => `/api/v1/orders/${readIds[n % readIds.length]}`,
    });
    const creates = await load(`${label} POST /api/v1/orders (2 items)`, base, {
      method: 'POST',
      headers: { ...auth.customer, 'content-type': 'application/json' },
      body: JSON.stringify({
        customerId: uuid('9000', 1),
        items: [
          { productId: uuid('8000', 1), quantity: 1 },
          { productId: uuid('8000', 2), quantity: 2 },
        ],
      }),
      idempotent: true,
    });
    return { reads, creates, rssMb: Math.round(rssMb(server.pid)) };
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
}

const databaseUrl = await prepareDatabase();
const admin = {
  authorization: `Bearer ${await signAccessToken(SECRET, { sub: randomUUID(), roles: ['ADMIN'], ttlSeconds: 3600 })}`,
};
const customer = {
  authorization: `Bearer ${await signAccessToken(SECRET, { sub: uuid('9000', 1), roles: ['CUSTOMER'], ttlSeconds: 3600 })}`,
};

const baseline = await measure(
  'baseline',
  ['bench/baseline-server.mjs'],
  { DATABASE_URL: databaseUrl },
  3101,
  {
    admin: {},
    customer: {},
  },
);
const service = await measure(
  'service',
  ['dist/src/main.js'],
  {
    DATABASE_URL: databaseUrl,
    NODE_ENV: 'production',
    JWT_SECRET: SECRET,
    RATE_LIMIT_LIMIT: '1000000',
    MIGRATIONS_RUN: 'false',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
  },
  3102,
  { admin, customer },
);

const ratio = (a, b) => Math.round((a / b) * 100) / 100;
const summary = {
  machine: `${process.platform} ${process.arch}, Node ${process.version}, ${(await import('node:os')).cpus().length} cores`,
  duration: DURATION,
  connections: CONNECTIONS,
  redis: process.env.REDIS_URL ? 'on' : 'off (in-memory counters)',
  baseline,
  service,
  ratios: {
    reads: ratio(service.reads.requestsPerSecond, baseline.reads.requestsPerSecond),
    creates: ratio(service.creates.requestsPerSecond, baseline.creates.requestsPerSecond),
  },
  goals: { reads: '>= 0.8', creates: '>= 0.5', serviceRssMb: '<= 200' },
};
mkdirSync(path.join(root, 'bench/results'), { recursive: true });
writeFileSync(path.join(root, 'bench/results/orders.json'), JSON.stringify(summary, null, 2));
console.log(JSON.stringify(summary, null, 2));
