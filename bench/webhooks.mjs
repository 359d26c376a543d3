// npm run bench:webhooks — webhook delivery by one `worker` process (node dist/src/worker.js) to a local
// receiver, while an `api` app in this process takes the order changes, on PostgreSQL (BENCH_DATABASE_URL or
// DATABASE_URL) and Redis (REDIS_URL; the queue wakes the worker; its keys are removed afterwards).
// Deliveries are created as every event's are, by the webhook fan-out subscriber in the worker. Four measures:
//   1. throughput: 3,000 events recorded in one statement, delivered to two endpoints: the rate at which
//      the 6,000 deliveries are received;
//   2. latency: 100 order changes a second (PATCH of an order's note) for 20 s, from each answer (its commit)
//      to the receipt of its ORDER_UPDATED (p50, p95, p99);
//   3. backlog: 10,000 deliveries attempted while the receiver answers 503, then the receiver comes back: the
//      time from the first success to the last delivery;
//   4. fairness: the latency measure at 20 changes a second, in interleaved rounds (BENCH_FAIRNESS_ROUNDS):
//      one healthy endpoint alone, then while 50 more endpoints subscribed to the same events never answer
//      (their server accepts the connection and stays silent): the healthy endpoint's commit-to-receipt, with
//      the load average at each measure's start.
// Goals: ≥ 300 deliveries/s, p95 ≤ 500 ms, the backlog drained in ≤ 60 s, the median of the rounds' p95 ≤ 1 s
// beside the silent endpoints. The receivers run in this process. BENCH_CASES (comma-separated) runs some of the cases only.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { readFileSync } from 'node:fs';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => require(path.join(root, 'dist/src', p));
const { signAccessToken } = dist('platform/auth/token-signer.js');
const { createHttpApp } = dist('bootstrap/http-app.js');
const { loadConfig } = dist('platform/config/app-config.js');
const { WebhookDeliveryProcessor } = dist('modules/webhooks/webhook-delivery.processor.js');
const { DataSource } = require('typeorm');
const Redis = require('ioredis');

const SERVER_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL;
if (!SERVER_URL || !REDIS_URL) {
  console.error('bench:webhooks needs BENCH_DATABASE_URL or DATABASE_URL, and REDIS_URL');
  process.exit(1);
}
const KEY_PREFIX = `bench-webhooks-${process.pid}`;
const DATABASE = 'order_service_bench_webhooks';
const SECRET = 'bench-secret-bench-secret-bench-secret-42';
const WEBHOOK_SECRET_KEY = Buffer.alloc(32, 1).toString('base64');
const THROUGHPUT_DELIVERIES = Number(process.env.BENCH_THROUGHPUT ?? 6_000);
const LATENCY_RATE = 100;
const LATENCY_SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? 20);
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 10_000);
const FAIRNESS_RATE = 20;
const FAIRNESS_SECONDS = Number(process.env.BENCH_FAIRNESS_SECONDS ?? 20);
const SILENT_ENDPOINTS = Number(process.env.BENCH_SILENT_ENDPOINTS ?? 50);
const FAIRNESS_ROUNDS = Number(process.env.BENCH_FAIRNESS_ROUNDS ?? 3);
const CASES = new Set((process.env.BENCH_CASES ?? 'throughput,latency,backlog,fairness').split(','));

async function freshDatabase() {
  const url = new URL(SERVER_URL);
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  await admin.end();
  url.pathname = `/${DATABASE}`;
  return url.toString();
}

async function dropDatabase() {
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.end();
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
/** The machine's load average over the last minute, from /proc. */
const loadAverage = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
const until = async (what, probe, timeoutMs) => {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

// The receiver: records when each webhook-id first arrived; answers 503 while `down`.
const received = new Map();
/** The receipt time of each order change's delivery, by the note it set. */
const notes = new Map();
let down = false;
let firstSuccessAt;
let accepted = 0;
const receiver = http.createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    if (down) return response.writeHead(503).end();
    const id = request.headers['webhook-id'];
    if (!received.has(id)) received.set(id, performance.now());
    const note = JSON.parse(Buffer.concat(chunks).toString('utf8')).data?.note;
    if (note && !notes.has(note)) notes.set(note, performance.now());
    firstSuccessAt ??= performance.now();
    accepted += 1;
    response.writeHead(204).end();
  });
});
receiver.keepAliveTimeout = 60_000;
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${receiver.address().port}`;

// The silent receiver: accepts every connection and never answers.
const silentSockets = new Set();
const silent = net.createServer((socket) => {
  silentSockets.add(socket);
  // Reads and discards what arrives (a socket left paused never sees the sender close it).
  socket.resume();
  socket.on('close', () => silentSockets.delete(socket));
  socket.on('error', () => undefined);
});
await new Promise((resolve) => silent.listen(0, '127.0.0.1', resolve));
const silentUrl = `http://127.0.0.1:${silent.address().port}`;

const url = await freshDatabase();
const env = {
  ...process.env,
  DATABASE_URL: url,
  REDIS_URL,
  REDIS_KEY_PREFIX: KEY_PREFIX,
  JWT_SECRET: SECRET,
  WEBHOOK_SECRET_KEY,
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  RATE_LIMIT_LIMIT: '1000000',
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'fatal',
};
const config = loadConfig({ ...env, APP_ROLE: 'api' });
const app = await createHttpApp(config);
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${app.getHttpServer().address().port}`;
const admin = `Bearer ${await signAccessToken(SECRET, { sub: randomUUID(), roles: ['ADMIN'], ttlSeconds: 7200 })}`;
const processor = app.get(WebhookDeliveryProcessor); // wakes the worker through the queue
// The one worker, a process of its own.
const worker = spawn(process.execPath, [path.join(root, 'dist/src/worker.js')], {
  env: { ...env, APP_ROLE: 'worker', PORT: '0', HOST: '127.0.0.1' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
await new Promise((resolve) => setTimeout(resolve, 5000));
if (worker.exitCode !== null) throw new Error('the worker did not start');
const dataSource = app.get(DataSource);

async function endpoint(pathName, origin = receiverUrl) {
  const res = await fetch(`${base}/api/v1/webhook-endpoints`, {
    method: 'POST',
    headers: { authorization: admin, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${origin}${pathName}`, eventTypes: ['ORDER_UPDATED'] }),
  });
  if (res.status !== 201) throw new Error(`endpoint: ${res.status} ${await res.text()}`);
  return res.json();
}

async function removeEndpoint(e) {
  await fetch(`${base}/api/v1/webhook-endpoints/${e.webhookEndpointId}`, {
    method: 'DELETE',
    headers: { authorization: admin },
  });
}

const customer = `Bearer ${await signAccessToken(SECRET, { sub: randomUUID(), roles: ['CUSTOMER'], ttlSeconds: 7200 })}`;
let orders;
/** 200 orders, so the changes hardly ever wait for one another's row lock (made once). */
async function ordersToChange() {
  if (orders) return orders;
  const createOrder = async () => {
    const res = await fetch(`${base}/api/v1/orders`, {
      method: 'POST',
      headers: {
        authorization: customer,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      body: JSON.stringify({ items: [] }),
    });
    if (res.status !== 201) throw new Error(`order: ${res.status} ${await res.text()}`);
    return (await res.json()).orderId;
  };
  orders = [];
  for (let i = 0; i < 20; i++) orders.push(...(await Promise.all(Array.from({ length: 10 }, createOrder))));
  return orders;
}

/**
 * `rate` order changes a second for `seconds`: the time from each answer (its commit) to the receipt of its
 * ORDER_UPDATED by the receiver, in ms (p50, p95, p99, max), and the changes the API refused.
 */
async function commitToReceipt(rate, seconds, label) {
  const targets = await ordersToChange();
  notes.clear();
  const changes = [];
  const tick = 1000 / rate;
  const t0 = performance.now();
  for (let i = 0; i < rate * seconds; i++) {
    const due = t0 + i * tick;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const note = `${label} ${i}`;
    changes.push(
      fetch(`${base}/api/v1/orders/${targets[i % targets.length]}`, {
        method: 'PATCH',
        headers: { authorization: customer, 'content-type': 'application/merge-patch+json' },
        body: JSON.stringify({ note }),
      }).then(async (res) => {
        const committedAt = performance.now();
        // A change the API refused (503 when PostgreSQL is saturated) records no event: counted, not timed.
        if (res.status !== 200) return { refused: res.status };
        return { note, committedAt };
      }),
    );
  }
  const answered = await Promise.all(changes);
  const committed = answered.filter((c) => c.note);
  await until(`the ${label} deliveries`, () => committed.every((c) => notes.has(c.note)), 60_000);
  const latencies = committed.map((c) => notes.get(c.note) - c.committedAt);
  return {
    changes: committed.length,
    refused: answered.length - committed.length,
    p50: Math.round(percentile(latencies, 50)),
    p95: Math.round(percentile(latencies, 95)),
    p99: Math.round(percentile(latencies, 99)),
    max: Math.round(Math.max(...latencies)),
  };
}

/**
 * `count` events recorded in one statement (as a batch of orders records them), committed; their ids. The
 * webhook fan-out subscriber in the worker creates their deliveries (woken by its safety poll or the next
 * change's wake-up).
 */
async function events(count) {
  const rows = await dataSource.query(
    `INSERT INTO events (type, order_id, data)
     SELECT 'ORDER_UPDATED', gen_random_uuid(), '{"bench":true}'::jsonb FROM generate_series(1, $1)
     RETURNING event_id`,
    [count],
  );
  await processor.deliveriesDue();
  return rows.map((row) => row.event_id);
}

const results = {};
try {
  if (CASES.has('throughput')) {
    // 1. Throughput, to two endpoints (each event goes to both).
    const endpoints = [await endpoint('/a'), await endpoint('/b')];
    const count = THROUGHPUT_DELIVERIES / endpoints.length;
    // Recorded in one statement: they all become due at its commit, so the rate is the delivery's alone.
    received.clear();
    accepted = 0;
    const started = performance.now();
    await events(count);
    const total = count * endpoints.length;
    await until('the throughput deliveries', () => accepted >= total, 120_000);
    const seconds = (performance.now() - started) / 1000;
    results.throughput = {
      deliveries: total,
      seconds: +seconds.toFixed(2),
      perSecond: Math.round(total / seconds),
    };
    console.log('throughput', results.throughput);
    for (const e of endpoints) await removeEndpoint(e);
  }

  if (CASES.has('latency') || CASES.has('backlog')) {
    // 2. Latency from commit to receipt at 100 order changes a second, one endpoint.
    const latencyEndpoint = await endpoint('/latency');
    if (CASES.has('latency')) {
      results.latency = await commitToReceipt(LATENCY_RATE, LATENCY_SECONDS, 'latency');
      console.log('latency ms', results.latency);
    }

    if (CASES.has('backlog')) {
      // 3. A backlog after a receiver outage.
      down = true;
      received.clear();
      const backlog = await events(BACKLOG);
      // Once every delivery has failed once (each waits for its retry, 5 s by the default schedule), the
      // receiver comes back; the first retry that succeeds makes the endpoint's other deliveries due at once.
      for (;;) {
        const [{ untried }] = await dataSource.query(
          'SELECT count(*)::int AS untried FROM webhook_delivery_queue WHERE attempts = 0',
        );
        if (untried === 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      firstSuccessAt = undefined;
      down = false;
      await until('the backlog', () => backlog.every((id) => received.has(id)), 180_000);
      const last = Math.max(...backlog.map((id) => received.get(id)));
      results.backlog = {
        deliveries: backlog.length,
        drainSeconds: +((last - firstSuccessAt) / 1000).toFixed(2),
      };
      console.log('backlog', results.backlog);
    }
    await removeEndpoint(latencyEndpoint);
  }

  if (CASES.has('fairness')) {
    // 4. One healthy endpoint, alone and beside silent ones, in interleaved rounds. The healthy one is proven
    // by a first delivery (an unproven endpoint gets one delivery at a time); the silent ones are new in each
    // round: each holds a connection until its attempt times out, then gets one probe at a time while its
    // other deliveries wait. They are deleted after their round, and the next round starts once their last
    // attempts have timed out.
    const healthy = await endpoint('/fair');
    await commitToReceipt(1, 1, 'warm-up');
    const rounds = [];
    for (let round = 1; round <= FAIRNESS_ROUNDS; round++) {
      const alone = {
        load: loadAverage(),
        ...(await commitToReceipt(FAIRNESS_RATE, FAIRNESS_SECONDS, `alone ${round}`)),
      };
      const silentEndpoints = [];
      for (let i = 0; i < SILENT_ENDPOINTS; i++)
        silentEndpoints.push(await endpoint(`/silent/${i}`, silentUrl));
      const beside = {
        load: loadAverage(),
        ...(await commitToReceipt(FAIRNESS_RATE, FAIRNESS_SECONDS, `beside ${round}`)),
        silentConnectionsOpen: silentSockets.size,
      };
      for (const e of silentEndpoints) await removeEndpoint(e);
      await until('the silent attempts to time out', () => silentSockets.size === 0, 60_000);
      rounds.push({ round, alone, beside });
      console.log('fairness round', round, 'ms', { alone, beside });
    }
    const summary = (which) => {
      const p95s = rounds.map((r) => r[which].p95);
      return { p95Median: percentile(p95s, 50), p95Min: Math.min(...p95s), p95Max: Math.max(...p95s) };
    };
    results.fairness = {
      silentEndpoints: SILENT_ENDPOINTS,
      alone: summary('alone'),
      beside: summary('beside'),
    };
    console.log('fairness ms', results.fairness);
    await removeEndpoint(healthy);
  }

  const goals = [
    results.throughput && ['≥ 300 deliveries/s', results.throughput.perSecond >= 300],
    results.latency && ['p95 ≤ 500 ms from commit to receipt', results.latency.p95 <= 500],
    results.backlog && ['10,000 pending drained in ≤ 60 s', results.backlog.drainSeconds <= 60],
    results.fairness && [
      `p95 ≤ 1 s from commit to receipt beside ${SILENT_ENDPOINTS} silent endpoints`,
      results.fairness.beside.p95Median <= 1000,
    ],
  ].filter(Boolean);
  for (const [goal, met] of goals) console.log(`${met ? 'met' : 'MISSED'}: ${goal}`);
  process.exitCode = goals.every(([, met]) => met) ? 0 : 1;
} finally {
  worker.kill('SIGTERM');
  await new Promise((resolve) => (worker.exitCode !== null ? resolve() : worker.once('exit', resolve)));
  await app.close();
  const redis = new Redis(REDIS_URL);
  for (let cursor = '0'; ;) {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${KEY_PREFIX}:*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
    if (cursor === '0') break;
  }
  await redis.quit();
  receiver.closeAllConnections();
  receiver.close();
  for (const socket of silentSockets) socket.destroy();
  silent.close();
  await dropDatabase();
}
