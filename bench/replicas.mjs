// npm run bench:replicas — read replicas: the primary's PostgreSQL CPU per list page with a replica configured
// against without one (CPU from /proc, split by each server's backends of the bench database: the primary's and
// the standby's), in interleaved rounds; then list p95 and failures while the replica is stopped and started
// under load, against a round with it up. Needs DATABASE_URL (the primary), BENCH_REPLICA_URL (a streaming
// standby of it, e.g. `scripts/pg-replica.sh start DIR`) and BENCH_REPLICA_DIR (that DIR, to stop and start it).
// Uses REDIS_URL when set. The app runs in this process (two instances: without and with the replica).
import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { median, PostgresCpu, spread } from './cpu-meter.mjs';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => require(path.join(root, 'dist/src', p));
const { signAccessToken } = dist('platform/auth/token-signer.js');
const { databaseOptions } = dist('platform/database/database-options.js');
const { runMigrationsLocked } = dist('platform/database/migrations-runner.js');
const { createHttpApp } = dist('bootstrap/http-app.js');
const { loadConfig } = dist('platform/config/app-config.js');
const { DataSource } = require('typeorm');

const SERVER_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL;
const REPLICA_SERVER_URL = process.env.BENCH_REPLICA_URL;
const REPLICA_DIR = process.env.BENCH_REPLICA_DIR;
if (!SERVER_URL || !REPLICA_SERVER_URL || !REPLICA_DIR) {
  console.error(
    'bench:replicas needs DATABASE_URL, BENCH_REPLICA_URL and BENCH_REPLICA_DIR (scripts/pg-replica.sh)',
  );
  process.exit(1);
}
const ORDERS = Number(process.env.BENCH_ORDERS ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const AMOUNT = Number(process.env.BENCH_AMOUNT ?? 2_000);
const CONNECTIONS = 10;

const onDatabase = (url, database) => {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
};

const database = `bench_replicas_${Date.now().toString(36)}`;
const primaryAdmin = new pg.Client({ connectionString: SERVER_URL });
await primaryAdmin.connect();
await primaryAdmin.query(`CREATE DATABASE ${database}`);
const dbUrl = onDatabase(SERVER_URL, database);
const replicaUrl = onDatabase(REPLICA_SERVER_URL, database);
const apps = [];
try {
  const migrator = await new DataSource(databaseOptions(dbUrl)).initialize();
  await runMigrationsLocked(migrator);
  await migrator.destroy();

  const base = {
    DATABASE_URL: dbUrl,
    MIGRATIONS_RUN: 'false',
    LOG_LEVEL: 'error',
    RATE_LIMIT_LIMIT: '1000000',
  };
  const boot = async (env) => {
    const config = loadConfig({ ...process.env, ...base, ...env });
    const app = await createHttpApp(config, {});
    await app.listen(0, '127.0.0.1');
    apps.push(app);
    return { app, config, url: `http://127.0.0.1:${app.getHttpServer().address().port}` };
  };
  const primaryOnly = await boot({ DATABASE_REPLICA_URLS: '' });
  const withReplica = await boot({ DATABASE_REPLICA_URLS: replicaUrl });

  // One customer's orders, made through the API.
  const customerId = randomUUID();
  const token = (roles, sub) =>
    signAccessToken(primaryOnly.config.auth.jwtSecret, { sub, roles, ttlSeconds: 7200 });
  const customer = { authorization: `Bearer ${await token(['CUSTOMER'], customerId)}` };
  for (let i = 0; i < ORDERS; i++) {
    const res = await fetch(`${primaryOnly.url}/api/v1/orders`, {
      method: 'POST',
      headers: { ...customer, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({ note: `bench ${i}` }),
    });
    if (res.status !== 201) throw new Error(`seeding: ${res.status} ${await res.text()}`);
  }
  // The standby has the orders, and the replica-configured app sees it up.
  const ready = async () =>
    (await (await fetch(`${withReplica.url}/ready`)).json()).details.replicas.status === 'up';
  while (!(await ready())) await new Promise((r) => setTimeout(r, 200));

  const standbyAdmin = new pg.Client({ connectionString: REPLICA_SERVER_URL });
  standbyAdmin.on('error', () => undefined);
  await standbyAdmin.connect();
  const primaryCpu = new PostgresCpu(primaryAdmin, database);
  const standbyCpu = new PostgresCpu(standbyAdmin, database);
  const listPath = '/api/v1/orders?size=20';

  const load = (url, amount) =>
    autocannon({ url: url + listPath, connections: CONNECTIONS, amount, headers: customer });

  const round = async (target) => {
    const [p0, s0] = [await primaryCpu.snapshot(), await standbyCpu.snapshot()];
    const result = await load(target.url, AMOUNT);
    const [p1, s1] = [await primaryCpu.snapshot(), await standbyCpu.snapshot()];
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
    return {
      primaryUs: PostgresCpu.spent(p0, p1) / result.requests.total,
      standbyUs: PostgresCpu.spent(s0, s1) / result.requests.total,
    };
  };

  for (const target of [primaryOnly, withReplica]) await load(target.url, 500);
  const runs = { primaryOnly: [], withReplica: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? ['primaryOnly', 'withReplica'] : ['withReplica', 'primaryOnly'];
    for (const name of order)
      runs[name].push(await round(name === 'primaryOnly' ? primaryOnly : withReplica));
  }

  // Drop and take back: a run with the replica up, then one during which it is stopped and started again.
  const p95Of = async (work) => {
    const statuses = new Map();
    const instance = autocannon({
      url: withReplica.url + listPath,
      connections: CONNECTIONS,
      amount: AMOUNT * 3,
      headers: customer,
      latency: true,
    });
    instance.on('response', (_client, status) => statuses.set(status, (statuses.get(status) ?? 0) + 1));
    const [result] = await Promise.all([instance, work?.()]);
    return { latency: result.latency, statuses: Object.fromEntries(statuses), errors: result.errors };
  };
  const steady = await p95Of();
  const script = path.join(root, 'scripts/pg-replica.sh');
  const dropped = await p95Of(async () => {
    await new Promise((r) => setTimeout(r, 300));
    execFileSync('bash', [script, 'halt', REPLICA_DIR]);
    await new Promise((r) => setTimeout(r, 500));
    execFileSync('bash', [script, 'start', REPLICA_DIR]);
  });
  await standbyAdmin.end().catch(() => undefined);

  const us = (values) => spread(values, 1);
  const report = {
    machine: { cpus: os.cpus().length, loadavg: os.loadavg().map((l) => l.toFixed(2)) },
    orders: ORDERS,
    rounds: ROUNDS,
    requestsPerRound: AMOUNT,
    primaryPostgresUsPerList: {
      withoutReplica: us(runs.primaryOnly.map((r) => r.primaryUs)),
      withReplica: us(runs.withReplica.map((r) => r.primaryUs)),
    },
    standbyPostgresUsPerList: { withReplica: us(runs.withReplica.map((r) => r.standbyUs)) },
    ratio: (
      median(runs.withReplica.map((r) => r.primaryUs)) / median(runs.primaryOnly.map((r) => r.primaryUs))
    ).toFixed(3),
    dropAndTakeBack: {
      // autocannon's percentiles: p90, p97.5 (at least p95) and p99.
      steadyMs: { p90: steady.latency.p90, p97_5: steady.latency.p97_5, p99: steady.latency.p99 },
      droppedMs: { p90: dropped.latency.p90, p97_5: dropped.latency.p97_5, p99: dropped.latency.p99 },
      steady: steady.statuses,
      dropped: dropped.statuses,
      errors: dropped.errors,
    },
  };
  console.log(JSON.stringify(report, null, 2));
} finally {
  for (const app of apps) await app.close();
  await primaryAdmin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await primaryAdmin.end();
}
