// npm run bench:batch — the batch endpoints against a single create on the same server and data.
// Goals: the median 100-item POST /orders/batch costs at most 15× the median single-item POST /orders
// (measured in the same run, interleaved), and the server's peak RSS stays under 300 MB through every batch
// endpoint, including concurrent 100-item batches; the median 100-item POST /orders/batch/confirm takes at
// most 150 ms. The server runs on core 0 (taskset), this runner on core 1.
// Needs PostgreSQL (BENCH_DATABASE_URL or DATABASE_URL); uses REDIS_URL when set (then NODE_ENV=production).
// BENCH_DIST points at a build other than dist/ (the tree `npm run build` writes).
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const distRoot = path.resolve(root, process.env.BENCH_DIST ?? 'dist');
const dist = (p) => require(path.join(distRoot, 'src', p));
const { signAccessToken } = dist('platform/auth/token-signer.js');
const { databaseOptions } = dist('platform/database/database-options.js');
const { runMigrationsLocked } = dist('platform/database/migrations-runner.js');
const { DataSource } = require('typeorm');

const SERVER_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL;
if (!SERVER_URL) {
  console.error('bench:batch needs BENCH_DATABASE_URL or DATABASE_URL (a PostgreSQL server)');
  process.exit(1);
}
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const SINGLES_PER_ROUND = 20;
const BATCHES_PER_ROUND = 3;
const BATCH_SIZE = 100;
const CONCURRENCY = Number(process.env.BENCH_CONNECTIONS ?? 8);
const CONCURRENT_SECONDS = Number(process.env.BENCH_DURATION ?? 10);
const PRODUCTS = 1000;
// Overridable: the other benches also listen on 31xx and may run at the same time on a shared machine.
const PORT = Number(process.env.BENCH_PORT ?? 3103);
const DATABASE = process.env.BENCH_DB_NAME ?? 'order_service_bench_batch';
const BASE = `http://127.0.0.1:${PORT}`;
const SECRET = 'bench-secret-bench-secret-bench-secret-42';
/** Production mode needs a webhook secret key; nothing here stores a webhook secret. */
const WEBHOOK_SECRET_KEY = Buffer.alloc(32, 1).toString('base64');
const CUSTOMER = '00000000-0000-4000-9000-00000000b001';
const productId = (n) => `00000000-0000-4000-8000-${(1 + (n % PRODUCTS)).toString(16).padStart(12, '0')}`;

async function prepareDatabase() {
  const url = new URL(SERVER_URL);
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${DATABASE}"`);
  await admin.end();
  url.pathname = `/${DATABASE}`;
  const dataSource = await new DataSource(databaseOptions(url.toString())).initialize();
  await runMigrationsLocked(dataSource);
  // Every run starts from the same state: the catalogue only, stock that never runs out.
  await dataSource.query('TRUNCATE orders, order_items, products, users, idempotency_keys CASCADE');
  await dataSource.query(
    `INSERT INTO products (product_id, name, price, stock, status)
     SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, 'Product ' || g,
            (10 + g % 4990)::numeric(12,2), 1000000000, 'ACTIVE'
     FROM generate_series(1, ${PRODUCTS}) g`,
  );
  await dataSource.query('ANALYZE');
  await dataSource.destroy();
  return url.toString();
}

function startServer(databaseUrl) {
  const production = Boolean(process.env.REDIS_URL);
  const child = spawn('taskset', ['-c', '0', process.execPath, path.join(distRoot, 'src/main.js')], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      NODE_ENV: production ? 'production' : 'development',
      JWT_SECRET: SECRET,
      WEBHOOK_SECRET_KEY,
      RATE_LIMIT_LIMIT: '1000000',
      MIGRATIONS_RUN: 'false',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(PORT),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return child;
}

async function waitUntilUp() {
  for (let i = 0; i < 200; i += 1) {
    try {
      if ((await fetch(`${BASE}/health`)).status === 200) return;
    } catch {
      // not yet listening
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${BASE} did not come up`);
}

/** Current and peak resident set of the server (taskset execs node in place: same pid). */
function memoryMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)[1]);
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakRssMb: Math.round(kb('VmHWM') / 1024) };
}

const auth = {
  authorization: `Bearer ${await signAccessToken(SECRET, { sub: CUSTOMER, roles: ['CUSTOMER'], ttlSeconds: 3600 })}`,
};

/** One request; fails the run on an unexpected status so a broken endpoint never yields a figure. */
async function call(method, url, body, expected) {
  const started = process.hrtime.bigint();
  const res = await fetch(`${BASE}${url}`, {
    method,
    headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (res.status !== expected) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 300)}`);
  return { ms, json: text ? JSON.parse(text) : undefined };
}

let next = 0;
const lines = (count) => Array.from({ length: count }, () => ({ productId: productId(next++), quantity: 1 }));

const singleCreate = () => call('POST', '/api/v1/orders', { items: lines(1) }, 201);
async function batchCreate() {
  const result = await call('POST', '/api/v1/orders/batch', { items: lines(BATCH_SIZE) }, 200);
  if (result.json.summary.succeeded !== BATCH_SIZE)
    throw new Error(`batch failed: ${JSON.stringify(result.json)}`);
  return result;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
const round2 = (n) => Math.round(n * 100) / 100;
const stats = (samples) => ({
  samples: samples.length,
  medianMs: round2(median(samples)),
  minMs: round2(Math.min(...samples)),
  maxMs: round2(Math.max(...samples)),
});

async function concurrentBatches() {
  const body = JSON.stringify({ items: lines(BATCH_SIZE) });
  const result = await autocannon({
    url: BASE,
    connections: CONCURRENCY,
    duration: CONCURRENT_SECONDS,
    requests: [
      {
        method: 'POST',
        path: '/api/v1/orders/batch',
        setupRequest: (req) => ({
          ...req,
          headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
          body,
        }),
      },
    ],
  });
  return {
    connections: CONCURRENCY,
    seconds: CONCURRENT_SECONDS,
    batchesPerSecond: round2(result['2xx'] / result.duration),
    ordersPerSecond: Math.round((result['2xx'] * BATCH_SIZE) / result.duration),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

const databaseUrl = await prepareDatabase();
const server = startServer(databaseUrl);
let summary;
try {
  await waitUntilUp();
  // Warm-up: JIT, connection pool, the caller's profile row, prepared plans.
  for (let i = 0; i < 30; i += 1) await singleCreate();
  for (let i = 0; i < 3; i += 1) await batchCreate();
  const afterWarmUp = memoryMb(server.pid);

  // Interleaved rounds, so drift (autovacuum, table growth) weighs on both sides alike.
  const single = [];
  const batch = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    for (let i = 0; i < SINGLES_PER_ROUND; i += 1) single.push((await singleCreate()).ms);
    for (let i = 0; i < BATCHES_PER_ROUND; i += 1) batch.push((await batchCreate()).ms);
  }

  // The other two batch endpoints, 100 items each, on fresh orders.
  const confirm = [];
  const addItems = [];
  for (let i = 0; i < ROUNDS; i += 1) {
    const created = (await batchCreate()).json.results.map((r) => ({ orderId: r.orderId }));
    const confirmed = await call('POST', '/api/v1/orders/batch/confirm', { items: created }, 200);
    if (confirmed.json.summary.succeeded !== BATCH_SIZE) throw new Error('batch confirm failed');
    confirm.push(confirmed.ms);
    const order = await call('POST', '/api/v1/orders', { items: [] }, 201);
    addItems.push(
      (
        await call(
          'POST',
          `/api/v1/orders/${order.json.orderId}/items/batch`,
          { items: lines(BATCH_SIZE) },
          200,
        )
      ).ms,
    );
  }

  const concurrent = await concurrentBatches();
  const memory = memoryMb(server.pid);
  const ratio = round2(median(batch) / median(single));
  const confirmMedian = median(confirm);
  summary = {
    machine: `${process.platform} ${process.arch}, Node ${process.version}, ${os.cpus().length} cores`,
    redis: process.env.REDIS_URL ? 'on' : 'off (in-memory counters)',
    singleCreate: { name: 'POST /api/v1/orders (1 item)', ...stats(single) },
    batchCreate: { name: `POST /api/v1/orders/batch (${BATCH_SIZE} items)`, ...stats(batch) },
    batchConfirm: { name: `POST /api/v1/orders/batch/confirm (${BATCH_SIZE} items)`, ...stats(confirm) },
    batchAddItems: {
      name: `POST /api/v1/orders/{orderId}/items/batch (${BATCH_SIZE} items)`,
      ...stats(addItems),
    },
    concurrentBatchCreate: concurrent,
    batchToSingleRatio: ratio,
    memory: { afterWarmUpRssMb: afterWarmUp.rssMb, ...memory },
    goals: { batchToSingleRatio: '<= 15', peakRssMb: '< 300', batchConfirmMedianMs: '<= 150' },
    met: ratio <= 15 && memory.peakRssMb < 300 && confirmMedian <= 150,
  };
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
}
mkdirSync(path.join(root, 'bench/results'), { recursive: true });
writeFileSync(path.join(root, 'bench/results/batch.json'), `${JSON.stringify(summary, null, 2)}\n`);
console.log(JSON.stringify(summary, null, 2));
if (!summary.met) process.exitCode = 1;
