// node bench/mechanism-ablation.mjs <dist> <out dir> <mechanism>[,<mechanism>…] — a copy of a build with
// the API's mechanisms switched off, for measuring what each costs alone. Never deployed: the copy breaks the
// API's rules on purpose. Run it as the `before` server of `bench:orders` or `bench:lists`
// (BENCH_BEFORE_DIST=<out dir>), so it meets the full service in the same rounds. Each switch edits the
// compiled JavaScript and fails if its target text is not found.
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const SWITCHES = {
  // The trace context in AsyncLocalStorage (logs, spans and jobs carry the trace id): no async context is
  // entered, for requests or jobs, so Node 20's promise hooks never turn on (one `run` anywhere, a queue
  // job's included, turns them on for the whole process).
  'async-context': [
    [
      'src/platform/tracing/tracing.hooks.js',
      '(0, trace_context_1.runInTrace)(request.trace, done);',
      'done();',
      2,
    ],
    [
      'src/platform/tracing/trace-context.js',
      'return storage.run(trace, from ? () => from.enter(trace, fn) : fn);',
      'return fn();',
    ],
  ],
  // The shared rate limit: the guard (Redis counters, RateLimit-* headers) is not installed.
  'rate-limit': [
    [
      'src/platform/rate-limit/rate-limit.module.js',
      'providers: [{ provide: core_1.APP_GUARD, useClass: rate_limit_guard_1.RateLimitGuard }],',
      'providers: [],',
    ],
  ],
  // The request histogram and counters of /metrics.
  metrics: [
    [
      'src/platform/metrics/metrics.service.js',
      "fastify.addHook('onResponse',",
      "((..._hook) => undefined)('onResponse',",
    ],
  ],
  // Helmet's eight security headers.
  'security-headers': [
    [
      'src/platform/http/security-headers.js',
      "fastify.addHook('onRequest',",
      "((..._hook) => undefined)('onRequest',",
    ],
  ],
  // The deprecation guard (Deprecation/Sunset/Link on deprecated operations, 410 after the sunset).
  deprecation: [
    [
      'src/platform/versioning/versioning.module.js',
      '{ provide: core_1.APP_GUARD, useClass: deprecation_guard_1.DeprecationGuard }',
      'clock_1.Clock',
    ],
  ],
  // The request validation guard (headers, query, path and body checked before the handler).
  'request-validation': [
    [
      'src/platform/validation/validation.module.js',
      '{ provide: core_1.APP_GUARD, useClass: request_validation_guard_1.RequestValidationGuard },',
      '',
    ],
  ],
  // CORS (@fastify/cors: Vary and the allow-origin headers on every response).
  cors: [
    [
      'src/platform/http/cors.js',
      'await fastify.register(cors_1.default,',
      'await ((..._plugin) => undefined)(cors_1.default,',
    ],
  ],
  // Multipart uploads (@fastify/multipart and the service's two hooks around it).
  multipart: [
    [
      'src/platform/validation/multipart-body.js',
      'await fastify.register(multipart_1.default,',
      'await ((..._plugin) => undefined)(multipart_1.default,',
    ],
    [
      'src/platform/validation/multipart-body.js',
      "fastify.addHook('preValidation',",
      "((..._hook) => undefined)('preValidation',",
    ],
    [
      'src/platform/validation/multipart-body.js',
      "fastify.addHook('onSend',",
      "((..._hook) => undefined)('onSend',",
    ],
  ],
  // The 414 for URIs over 8 KiB.
  'uri-length': [
    [
      'src/platform/http/uri-length.hook.js',
      "fastify.addHook('onRequest',",
      "((..._hook) => undefined)('onRequest',",
    ],
  ],
  // Conditional reads (If-None-Match → 304).
  'conditional-read': [
    [
      'src/platform/http/conditional-read.hook.js',
      "fastify.addHook('onSend',",
      "((..._hook) => undefined)('onSend',",
    ],
  ],
  // The idempotency recorder's hook (stores the response of a request with a claimed key).
  'idempotency-hook': [
    [
      'src/platform/idempotency/idempotency.recorder.js',
      "fastify?.addHook('onSend',",
      "((..._hook) => undefined)('onSend',",
    ],
  ],
  // The JSON output rules' hook (order views are in output form already; other bodies would not be).
  'json-output': [
    [
      'src/platform/http/json-output.hook.js',
      "fastify.addHook('preSerialization',",
      "((..._hook) => undefined)('preSerialization',",
    ],
  ],
  // Bearer authentication (the token read, its verified-token cache, roles): every request is one fixed
  // admin. For measurement only: it lets anyone in.
  'bearer-auth': [
    [
      'src/platform/auth/bearer-auth.guard.js',
      'async canActivate(context) {',
      "async canActivate(context) { context.switchToHttp().getRequest().caller = { userId: '00000000-0000-4000-9000-000000000001', roles: ['ADMIN'] }; return true;",
    ],
  ],
  // The trace ids of each request (random span and trace ids, the `traceparent` text): one fixed trace.
  'trace-ids': [
    [
      'src/platform/tracing/trace-context.js',
      'function startSpan(incoming) {',
      "const FIXED_TRACE = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', sampled: true, traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };\nfunction startSpan(incoming) { return FIXED_TRACE;",
    ],
  ],
  // The just-in-time user (a caller's first request creates its user row).
  'just-in-time-user': [
    [
      'src/modules/users/users.module.js',
      '{ provide: core_1.APP_GUARD, useClass: just_in_time_user_guard_1.JustInTimeUserGuard },',
      '',
    ],
  ],
};

const [dist, out, list] = process.argv.slice(2);
if (!dist || !out || !list) {
  console.error(
    `usage: node bench/mechanism-ablation.mjs <dist> <out dir> <${Object.keys(SWITCHES).join('|')}|all>[,…]`,
  );
  process.exit(2);
}
const names = list === 'all' ? Object.keys(SWITCHES) : list.split(',');
rmSync(out, { recursive: true, force: true });
cpSync(dist, out, { recursive: true });
for (const name of names) {
  const edits = SWITCHES[name];
  if (!edits) throw new Error(`unknown mechanism ${name}`);
  for (const [file, from, to, times = 1] of edits) {
    const target = path.join(out, file);
    const text = readFileSync(target, 'utf8');
    const found = text.split(from).length - 1;
    if (found !== times)
      throw new Error(`${name}: expected ${times} × ${JSON.stringify(from)} in ${file}, found ${found}`);
    writeFileSync(target, text.split(from).join(to));
  }
}
console.log(`${out}: ${dist} without ${names.join(', ')}`);
