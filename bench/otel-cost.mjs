// npm run bench:otel — the CPU cost of OpenTelemetry tracing on `GET /api/v1/orders/{orderId}`.
// The built service (`node dist/src/main.js`, NODE_ENV=production, Redis on when REDIS_URL is set) runs with
// tracing off, on (every trace sampled, every span exported as OTLP/HTTP JSON to a receiver in this process
// that counts and drops them), and on with 10 % of new traces sampled (`parentbased_traceidratio`), in
// interleaved rounds so drift on this shared host weighs on all alike. Each round: a fresh
// server process, 1,000 warm-up reads, then BENCH_REQUESTS reads (default 6,000) from 8 keep-alive
// connections; the figure is the server's own CPU time (utime + stime from /proc/<pid>/stat) per request, so
// the load generator's CPU does not count. With `taskset` present, the server is pinned to core 0 and this
// process to core 1. Needs DATABASE_URL (a server; the database `order_service_bench_otel` is made afresh).
import { spawn, execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { signAccessToken } = require(path.join(root, 'dist/src/platform/auth/token-signer.js'));

const SERVER_URL = process.env.DATABASE_URL;
if (!SERVER_URL) {
  console.error('bench:otel needs DATABASE_URL (a PostgreSQL server)');
  process.exit(1);
}
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 6_000);
const WARMUP = 1_000;
const CONNECTIONS = 8;
const PORT = 3121;
const SECRET = 'bench-secret-bench-secret-bench-secret-42';
/** Production mode needs a webhook secret key; nothing here stores a webhook secret. */
const WEBHOOK_SECRET_KEY = Buffer.alloc(32, 1).toString('base64');
const ADMIN = '00000000-0000-4000-9000-00000000aaaa';
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());
const pinned = (() => {
  try {
    execFileSync('taskset', ['-c', '1', 'true']);
    return true;
  } catch {
    return false;
  }
})();

async function freshDatabase() {
  const url = new URL(SERVER_URL);
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS order_service_bench_otel');
  await admin.query('CREATE DATABASE order_service_bench_otel');
  await admin.end();
  url.pathname = '/order_service_bench_otel';
  return url.toString();
}

/** An OTLP/HTTP receiver that counts the spans it is sent and keeps nothing. */
function startReceiver() {
  const counts = { spans: 0, requests: 0 };
  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on('data', (d) => chunks.push(d));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString());
      counts.requests += 1;
      for (const r of body.resourceSpans ?? [])
        for (const s of r.scopeSpans ?? []) counts.spans += s.spans.length;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, counts })));
}

function cpuSeconds(pid) {
  // Fields after the command name (which may hold spaces): utime and stime are the 14th and 15th fields.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

const MODES = {
  off: {},
  on: { OTEL_TRACES_SAMPLER: 'parentbased_always_on' },
  'on, 10 % sampled': { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' },
};

async function startService(databaseUrl, otlpEndpoint, extraEnv = {}) {
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    JWT_SECRET: SECRET,
    WEBHOOK_SECRET_KEY,
    PORT: String(PORT),
    HOST: '127.0.0.1',
    RATE_LIMIT_LIMIT: '1000000',
    LOG_LEVEL: 'warn',
    REDIS_KEY_PREFIX: `bench-otel-${randomUUID().slice(0, 8)}`,
    OTEL_BSP_SCHEDULE_DELAY: '1000',
    ...extraEnv,
  };
  delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (otlpEndpoint) env.OTEL_EXPORTER_OTLP_ENDPOINT = otlpEndpoint;
  if (!env.REDIS_URL) delete env.REDIS_URL;
  const [command, args] = pinned
    ? ['taskset', ['-c', '0', process.execPath, 'dist/src/main.js']]
    : [process.execPath, ['dist/src/main.js']];
  const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${PORT}/ready`)
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) break;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error('the service did not start');
    await new Promise((r) => setTimeout(r, 200));
  }
  return child;
}

async function stop(child) {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });

function get(pathname, authorization) {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port: PORT, path: pathname, agent, headers: { authorization } },
      (response) => {
        response.resume();
        response.on('end', () =>
          response.statusCode === 200 ? resolve() : reject(new Error(`${response.statusCode}`)),
        );
      },
    );
    request.on('error', reject);
    request.end();
  });
}

async function load(count, ids, authorization) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await get(`/api/v1/orders/${ids[i % ids.length]}`, authorization);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
}

async function seed(authorization) {
  const post = async (pathname, body, headers = {}) => {
    const res = await fetch(`http://127.0.0.1:${PORT}${pathname}`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    if (res.status !== 201) throw new Error(`${pathname}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const product = await post('/api/v1/products', {
    name: 'Bench kettle',
    price: 19.9,
    stock: 1_000_000,
    status: 'ACTIVE',
  });
  const ids = [];
  for (let i = 0; i < 200; i++) {
    const order = await post(
      '/api/v1/orders',
      { items: [{ productId: product.productId, quantity: 1 + (i % 3) }], note: `bench ${i}` },
      { 'idempotency-key': randomUUID() },
    );
    ids.push(order.orderId);
  }
  return ids;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round1 = (x) => Math.round(x * 10) / 10;

async function main() {
  if (pinned) execFileSync('taskset', ['-cp', '1', String(process.pid)], { stdio: 'ignore' });
  const databaseUrl = await freshDatabase();
  const { server: receiver, counts } = await startReceiver();
  const endpoint = `http://127.0.0.1:${receiver.address().port}`;
  const authorization = `Bearer ${await signAccessToken(SECRET, { sub: ADMIN, roles: ['ADMIN'] })}`;

  const seeding = await startService(databaseUrl, undefined);
  const ids = await seed(authorization);
  await stop(seeding);

  const names = Object.keys(MODES);
  const results = Object.fromEntries(names.map((n) => [n, []]));
  const spansPerRequest = Object.fromEntries(names.slice(1).map((n) => [n, []]));
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate which mode goes first, so a trend over the run does not favour one.
    const modes = names.map((_, i) => names[(i + round) % names.length]);
    for (const mode of modes) {
      const child = await startService(databaseUrl, mode === 'off' ? undefined : endpoint, MODES[mode]);
      const spansBefore = counts.spans;
      await load(WARMUP, ids, authorization);
      const before = cpuSeconds(child.pid);
      await load(REQUESTS, ids, authorization);
      const after = cpuSeconds(child.pid);
      const microseconds = ((after - before) * 1e6) / REQUESTS;
      results[mode].push(microseconds);
      await stop(child);
      // Every span, the shutdown's flush included: fewer than the requests make would mean spans were dropped.
      if (mode !== 'off') spansPerRequest[mode].push((counts.spans - spansBefore) / (WARMUP + REQUESTS));
      console.log(`round ${round + 1} ${mode}: ${round1(microseconds)} µs CPU per request`);
    }
  }
  agent.destroy();
  receiver.close();

  const summary = {
    machine: `${os.cpus()[0]?.model ?? 'unknown'}, ${os.cpus().length} cores, Node ${process.version}`,
    pinned,
    rounds: ROUNDS,
    requestsPerRound: REQUESTS,
    connections: CONNECTIONS,
    redis: Boolean(process.env.REDIS_URL),
    cpuMicrosecondsPerRequest: Object.fromEntries(
      names.map((n) => [
        n,
        {
          median: round1(median(results[n])),
          range: [round1(Math.min(...results[n])), round1(Math.max(...results[n]))],
          overheadOfMedians:
            n === 'off' ? undefined : `${round1((median(results[n]) / median(results.off) - 1) * 100)} %`,
        },
      ]),
    ),
    exportedSpansPerRequest: Object.fromEntries(
      Object.entries(spansPerRequest).map(([n, xs]) => [n, Math.round(median(xs) * 100) / 100]),
    ),
    raw: results,
  };
  mkdirSync(path.join(root, 'bench/results'), { recursive: true });
  writeFileSync(path.join(root, 'bench/results/otel.json'), `${JSON.stringify(summary, null, 2)}\n`);
  console.log(JSON.stringify({ ...summary, raw: undefined }, null, 2));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
