// node [--cpu-prof] bench/inject-profile.mjs [reads|list|create] [count] — the service's own CPU per request
// without sockets: the app in this process, requests through Fastify's inject (routing, hooks, Nest, the
// database round trip), one at a time. Isolates the JavaScript cost of a path from the kernel's socket
// costs and from scheduling noise; use it to find and compare JavaScript costs, and bench:orders /
// bench:lists for the figures that count. Needs the databases those benches seed (run them once first).
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => require(path.join(root, 'dist/src', p));
const { signAccessToken } = dist('auth/token-signer.js');
const { createHttpApp } = dist('bootstrap/http-app.js');
const { loadConfig } = dist('config/app-config.js');

const [scenario = 'reads', countArg] = process.argv.slice(2);
const count = Number(countArg ?? 5000);
const SECRET = 'bench-secret-bench-secret-bench-secret-42';
const server = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
server.pathname = scenario === 'list' ? '/order_service_lists' : '/order_service_bench';
const uuid = (prefix, n) => `00000000-0000-4000-${prefix}-${n.toString(16).padStart(12, '0')}`;
const LIST_CUSTOMER = '00000000-0000-4000-9000-00000000ffff';

const config = loadConfig({
  ...process.env,
  DATABASE_URL: server.toString(),
  JWT_SECRET: SECRET,
  RATE_LIMIT_LIMIT: '1000000',
  MIGRATIONS_RUN: 'false',
  LOG_LEVEL: 'warn',
  NODE_ENV: 'production',
});
const app = await createHttpApp(config);
const fastify = app.getHttpAdapter().getInstance();
const token = async (sub, roles) =>
  `Bearer ${await signAccessToken(SECRET, { sub, roles, ttlSeconds: 7200 })}`;
const admin = await token(randomUUID(), ['ADMIN']);
const customer = await token(uuid('9000', 1), ['CUSTOMER']);
const listCustomer = await token(LIST_CUSTOMER, ['CUSTOMER']);
const createBody = JSON.stringify({
  items: [
    { productId: uuid('8000', 1), quantity: 1 },
    { productId: uuid('8000', 2), quantity: 2 },
  ],
});

const requests = {
  reads: (n) => ({
    method: 'GET',
    url: `/api/v1/orders/${uuid('a000', 1 + ((n * 7919) % 100000))}`,
    headers: { authorization: admin },
  }),
  list: () => ({ method: 'GET', url: '/api/v1/orders?size=20', headers: { authorization: listCustomer } }),
  create: () => ({
    method: 'POST',
    url: '/api/v1/orders',
    headers: { authorization: customer, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    payload: createBody,
  }),
};
const request = requests[scenario];

async function run(n) {
  // Ten at a time, as a loaded server interleaves requests.
  for (let i = 0; i < n; i += 10) {
    const batch = await Promise.all(Array.from({ length: 10 }, (_, j) => fastify.inject(request(i + j))));
    for (const res of batch) if (res.statusCode >= 300) throw new Error(`${res.statusCode} ${res.body}`);
  }
}
await run(Math.min(2000, count)); // warm-up
const before = process.cpuUsage();
const started = process.hrtime.bigint();
await run(count);
const cpu = process.cpuUsage(before);
const wall = Number(process.hrtime.bigint() - started) / 1e3;
console.log(
  JSON.stringify({
    scenario,
    count,
    cpuUsPerRequest: Math.round((cpu.user + cpu.system) / count),
    userUsPerRequest: Math.round(cpu.user / count),
    wallUsPerRequest: Math.round(wall / count),
  }),
);
await app.close();
