// npm run bench:tasks — long-running tasks at scale: a report over 1,000,000 orders and a CSV export of
// a customer with 100,000 orders, run by a separate `worker` process on BullMQ, started over HTTP through an `api`
// process. Goals: both complete; the worker's RSS (VmRSS sampled every 50 ms from /proc, and VmHWM) stays under
// 250 MB; the report takes at most 3× the equivalent SQL aggregate run directly, measured in the same run
// (interleaved rounds: SQL, report, export). Needs PostgreSQL and Redis (DATABASE_URL or BENCH_DATABASE_URL, and
// REDIS_URL). Seeds `order_service_bench_tasks` once (about 2–3 minutes) and reuses it.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { deployedMemorySettings } from './deployed-memory-settings.mjs';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => require(path.join(root, 'dist/src', p));
const { signAccessToken } = dist('platform/auth/token-signer.js');
const { databaseOptions } = dist('platform/database/database-options.js');
const { runMigrationsLocked } = dist('platform/database/migrations-runner.js');
const { DataSource } = require('typeorm');

const SERVER_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL;
if (!SERVER_URL || !REDIS_URL) {
  console.error('bench:tasks needs DATABASE_URL (or BENCH_DATABASE_URL) and REDIS_URL');
  process.exit(1);
}
const ORDERS = 1_000_000;
const EXPORT_ORDERS = 100_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECRET = 'bench-secret-bench-secret-bench-secret-42';
/** Production mode needs a webhook secret key; nothing here stores a webhook secret. */
const WEBHOOK_SECRET_KEY = Buffer.alloc(32, 1).toString('base64');
const API_PORT = 3111;
const WORKER_PORT = 3112;
const BASE = `http://127.0.0.1:${API_PORT}`;
const ADMIN = '00000000-0000-4000-9000-00000000aaaa';
const EXPORTER = '00000000-0000-4000-9000-00000000eeee';
const RANGE = { dateFrom: '2025-01-01', dateTo: '2025-12-31' };
const uuidSql = (prefix, expr) => `('00000000-0000-4000-${prefix}-' || lpad(to_hex(${expr}), 12, '0'))::uuid`;

async function prepareDatabase() {
  const url = new URL(SERVER_URL);
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  if (
    (await admin.query("SELECT 1 FROM pg_database WHERE datname = 'order_service_bench_tasks'")).rowCount ===
    0
  ) {
    await admin.query('CREATE DATABASE order_service_bench_tasks');
  }
  await admin.end();
  url.pathname = '/order_service_bench_tasks';
  const migrations = await new DataSource(databaseOptions(url.toString())).initialize();
  await runMigrationsLocked(migrations);
  await migrations.destroy();
  const db = new pg.Client({ connectionString: url.toString() });
  await db.connect();
  const { rows } = await db.query('SELECT count(*)::int AS n FROM orders');
  if (rows[0].n < ORDERS + EXPORT_ORDERS) {
    const started = Date.now();
    await db.query('TRUNCATE orders, order_items, products, users, order_status_counts, tasks CASCADE');
    await db.query('SET session_replication_role = replica');
    await db.query(
      `INSERT INTO users (user_id, roles) SELECT ${uuidSql('9000', 'g')}, '{CUSTOMER}' FROM generate_series(1, 20000) g`,
    );
    await db.query(
      `INSERT INTO users (user_id, roles) VALUES ('${ADMIN}', '{ADMIN}'), ('${EXPORTER}', '{CUSTOMER}')`,
    );
    await db.query(`INSERT INTO products (product_id, name, price, stock, status)
      SELECT ${uuidSql('8000', 'g')}, 'Product ' || g, (10 + g % 4990)::numeric(12,2), 1000000, 'ACTIVE'
      FROM generate_series(1, 5000) g`);
    // 1,000,000 orders spread over 2025, three lines each; the exporter owns 100,000 more, in 2024.
    await db.query(`INSERT INTO orders (order_id, customer_id, status, created_at, note)
      SELECT ${uuidSql('a000', 'g')}, ${uuidSql('9000', '1 + g % 20000')},
             (ARRAY['CREATED','CONFIRMED','SHIPPED','DELIVERED','CANCELLED','REFUNDED'])[1 + (g * 7) % 6],
             timestamptz '2025-01-01' + make_interval(secs => g * 31),
             CASE WHEN g % 10 = 0 THEN 'note ' || g END
      FROM generate_series(1, ${ORDERS}) g`);
    await db.query(`INSERT INTO orders (order_id, customer_id, status, created_at, note)
      SELECT ${uuidSql('b000', 'g')}, '${EXPORTER}', 'DELIVERED', timestamptz '2024-01-01' + make_interval(secs => g * 300),
             CASE WHEN g % 7 = 0 THEN '=cmd, "quoted" ' || g END
      FROM generate_series(1, ${EXPORT_ORDERS}) g`);
    await db.query(`INSERT INTO order_items (order_id, product_id, product_name, unit_price, quantity, created_at)
      SELECT o.order_id, p.product_id, p.name, p.price, 1 + (g + j) % 3, o.created_at
      FROM (SELECT order_id, created_at, row_number() OVER () AS g FROM orders) o
      CROSS JOIN generate_series(1, 3) j
      JOIN products p ON p.product_id = ${uuidSql('8000', '1 + (o.g * 7 + j * 13) % 5000')}`);
    await db.query(`UPDATE orders o SET total_amount = s.total FROM (
      SELECT order_id, sum(unit_price * quantity) AS total FROM order_items GROUP BY order_id) s
      WHERE s.order_id = o.order_id`);
    await db.query('SET session_replication_role = DEFAULT');
    await db.query(
      'INSERT INTO order_status_counts (status, shard, n) SELECT status, 0, count(*) FROM orders GROUP BY status',
    );
    await db.query('VACUUM ANALYZE');
    console.log(`seeded ${ORDERS + EXPORT_ORDERS} orders in ${Math.round((Date.now() - started) / 1000)} s`);
  }
  await db.end();
  return url.toString();
}

/** The SQL that computes the same report in one statement, straight on the database. */
const DIRECT_AGGREGATE = `
  WITH o AS (
    SELECT order_id, created_at, status, total_amount FROM orders
    WHERE created_at >= ($1::date)::timestamp AT TIME ZONE 'UTC' AND created_at < ($2::date + 1)::timestamp AT TIME ZONE 'UTC')
  SELECT
    (SELECT json_agg(d) FROM (SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, status,
       count(*) AS orders, sum(total_amount) AS amount FROM o GROUP BY 1, 2) d) AS days,
    (SELECT json_agg(p) FROM (SELECT i.product_id, max(i.product_name) AS name, sum(i.quantity) AS quantity,
       sum(i.unit_price * i.quantity) AS amount FROM o JOIN order_items i ON i.order_id = o.order_id
       GROUP BY i.product_id) p) AS products`;

function env(extra) {
  return {
    ...process.env,
    NODE_ENV: 'production',
    JWT_SECRET: SECRET,
    WEBHOOK_SECRET_KEY,
    REDIS_URL,
    REDIS_KEY_PREFIX: 'order-service-bench-tasks',
    RATE_LIMIT_LIMIT: '1000000',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    ...extra,
  };
}

/** Starts the built entry point in a role and waits for its /health. */
async function runProcess(extra, port) {
  const entry = extra.APP_ROLE === 'worker' ? 'src/worker.js' : 'src/main.js';
  // The memory settings of the role's Deployment; BENCH_NODE_OPTIONS replaces its NODE_OPTIONS.
  const manifest = extra.APP_ROLE === 'worker' ? 'worker.yaml' : 'api.yaml';
  const memorySettings = deployedMemorySettings(root, path.join('deploy/k8s/base', manifest));
  const child = spawn(process.execPath, [path.join(root, 'dist', entry)], {
    cwd: root,
    env: env({ ...extra, PORT: String(port), ...memorySettings }),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; ; i += 1) {
    const up = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
    if (up?.status === 200) break;
    if (i > 300 || child.exitCode !== null) throw new Error(`${entry} did not start`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return child;
}

function memoryMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)[1]);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

const token = async (sub, role) =>
  `Bearer ${await signAccessToken(SECRET, { sub, roles: [role], ttlSeconds: 3600 })}`;

/** Starts a task, polls it to the end; resolves with the wall time from the 202 to COMPLETED and the task. */
async function runTask(authorization, url, body) {
  const started = performance.now();
  const res = await fetch(`${BASE}${url}`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 202) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  const location = res.headers.get('location');
  for (;;) {
    const task = await (await fetch(`${BASE}${location}`, { headers: { authorization } })).json();
    if (task.status === 'COMPLETED') return { ms: performance.now() - started, task };
    if (task.status !== 'PENDING' && task.status !== 'PROCESSING')
      throw new Error(`${url}: ${JSON.stringify(task)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const range = (values) => [Math.min(...values), Math.max(...values)].map((v) => Math.round(v));

const databaseUrl = await prepareDatabase();
const api = await runProcess(
  { APP_ROLE: 'api', DATABASE_URL: databaseUrl, MIGRATIONS_RUN: 'false' },
  API_PORT,
);
const worker = await runProcess(
  { APP_ROLE: 'worker', DATABASE_URL: databaseUrl, MIGRATIONS_RUN: 'false' },
  WORKER_PORT,
);
const idleRssMb = Math.round(memoryMb(worker.pid).rss);
const peaks = { report: 0, export: 0 };
let phase = 'report';
const sampler = setInterval(() => {
  peaks[phase] = Math.max(peaks[phase], memoryMb(worker.pid).rss);
}, 50);

const sql = new pg.Client({ connectionString: databaseUrl });
await sql.connect();
const adminAuth = await token(ADMIN, 'ADMIN');
const exporterAuth = await token(EXPORTER, 'CUSTOMER');
const rounds = [];
for (let round = 1; round <= ROUNDS; round += 1) {
  const sqlStarted = performance.now();
  await sql.query(DIRECT_AGGREGATE, [RANGE.dateFrom, RANGE.dateTo]);
  const sqlMs = performance.now() - sqlStarted;
  phase = 'report';
  const report = await runTask(adminAuth, '/api/v1/reports/generate', RANGE);
  phase = 'export';
  const exported = await runTask(exporterAuth, `/api/v1/customers/${EXPORTER}/export`, { format: 'CSV' });
  const file = await fetch(`${BASE}${exported.task.resultUrl}`, { headers: { authorization: exporterAuth } });
  const bytes = Buffer.from(await file.arrayBuffer());
  const lines = bytes.toString('utf8').split('\r\n').length - 2;
  const body = await (
    await fetch(`${BASE}${report.task.resultUrl}`, { headers: { authorization: adminAuth } })
  ).json();
  rounds.push({
    sqlMs: Math.round(sqlMs),
    reportMs: Math.round(report.ms),
    ratio: Number((report.ms / sqlMs).toFixed(2)),
    reportOrders: body.orderCount,
    exportMs: Math.round(exported.ms),
    exportBytes: bytes.length,
    exportRows: lines,
    exportSha256: createHash('sha256').update(bytes).digest('hex').slice(0, 16),
  });
  console.log(`round ${round}: ${JSON.stringify(rounds[rounds.length - 1])}`);
}
clearInterval(sampler);
const memory = memoryMb(worker.pid);
await sql.end();
for (const child of [api, worker]) child.kill('SIGTERM');

const summary = {
  machine: `${os.cpus()[0].model}, ${os.cpus().length} cores, Node ${process.version}`,
  rounds,
  report: {
    sqlMsMedian: median(rounds.map((r) => r.sqlMs)),
    sqlMsRange: range(rounds.map((r) => r.sqlMs)),
    reportMsMedian: median(rounds.map((r) => r.reportMs)),
    reportMsRange: range(rounds.map((r) => r.reportMs)),
    ratioMedian: median(rounds.map((r) => r.ratio)),
    ratioRange: [Math.min(...rounds.map((r) => r.ratio)), Math.max(...rounds.map((r) => r.ratio))],
  },
  export: {
    msMedian: median(rounds.map((r) => r.exportMs)),
    msRange: range(rounds.map((r) => r.exportMs)),
    rows: rounds[0].exportRows,
    bytes: rounds[0].exportBytes,
    sameBytesEveryRound: new Set(rounds.map((r) => r.exportSha256)).size === 1,
  },
  worker: {
    memorySettings: deployedMemorySettings(root, 'deploy/k8s/base/worker.yaml'),
    idleRssMb,
    peakRssMbDuringReports: Math.round(peaks.report),
    peakRssMbDuringExports: Math.round(peaks.export),
    vmHwmMb: Math.round(memory.peak),
  },
  goals: { reportRatio: '<= 3', workerRssMb: '< 250', exportRows: EXPORT_ORDERS * 3, reportOrders: ORDERS },
};
mkdirSync(path.join(root, 'bench/results'), { recursive: true });
writeFileSync(path.join(root, 'bench/results/tasks.json'), JSON.stringify(summary, null, 2));
console.log(JSON.stringify(summary, null, 2));
const failed =
  summary.report.ratioMedian > 3 ||
  summary.worker.vmHwmMb >= 250 ||
  rounds.some((r) => r.exportRows !== EXPORT_ORDERS * 3 || r.reportOrders !== ORDERS);
process.exit(failed ? 1 : 0);
