import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { loadConfig } from '../src/platform/config/app-config';
import { freePort } from './support/net';
import { bearer } from './support/tokens';
import { answers200, until } from './support/wait';
import { runRedis } from './support/redis';

/**
 * OpenTelemetry traces of the built app (`node dist/src/main.js`) in a process of its own, exported over
 * OTLP/HTTP JSON to a receiver this test runs: the request's trace continues the caller's `traceparent`, the
 * ids the service reports are those of the spans it exports, statements and Redis commands are children of
 * the request (or job) that ran them, a job joins the trace of the request that queued it, and no value of
 * a statement, a body or a token reaches an attribute. The batch processor's delay is an hour, so every span
 * arrives with the flush of the graceful shutdown: that flush is under test too.
 */
const ROOT = path.resolve(__dirname, '..');

/** OTLP JSON, as much of it as the assertions read. */
interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values: OtlpValue[] };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: OtlpValue }[];
  status?: { code?: number };
}
interface OtlpExport {
  resourceSpans: {
    resource: { attributes: { key: string; value: OtlpValue }[] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
}

const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

function attr(span: OtlpSpan, key: string): string | number | boolean | undefined {
  const value = span.attributes.find((a) => a.key === key)?.value;
  if (!value) return undefined;
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.boolValue ?? value.doubleValue ?? JSON.stringify(value.arrayValue);
}

/** A W3C traceparent of a caller: fresh random ids, sampled. */
function callerTraceparent(): { header: string; traceId: string; spanId: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { header: `00-${traceId}-${spanId}-01`, traceId, spanId };
}

function parseTraceparentHeader(value: string | null): { traceId: string; spanId: string } {
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(value ?? '');
  if (!match) throw new Error(`not a sampled traceparent: ${value}`);
  return { traceId: match[1], spanId: match[2] };
}

/** True when `span` descends from the span `ancestorId` through parents of the same trace. */
function descendsFrom(span: OtlpSpan, ancestorId: string, byId: Map<string, OtlpSpan>): boolean {
  let parent = span.parentSpanId;
  for (let hops = 0; parent && hops < 50; hops++) {
    if (parent === ancestorId) return true;
    parent = byId.get(parent)?.parentSpanId;
  }
  return false;
}

describe('OpenTelemetry traces over OTLP/HTTP', () => {
  const exports: OtlpExport[] = [];
  const exportPaths: string[] = [];
  let receiver: http.Server;
  let child: ChildProcess;
  let output = '';
  let exitCode: number | null = null;
  let base: string;
  let admin: string;
  let adminId: string;

  const spans = () =>
    exports.flatMap((e) => e.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
  const traceSpans = (traceId: string) => spans().filter((s) => s.traceId === traceId);

  beforeAll(async () => {
    receiver = http.createServer((request, response) => {
      let body = '';
      request.on('data', (d: Buffer) => (body += d.toString()));
      request.on('end', () => {
        exportPaths.push(`${request.method} ${request.url} ${request.headers['content-type']}`);
        exports.push(JSON.parse(body) as OtlpExport);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const collector = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      RATE_LIMIT_LIMIT: '1000000',
      LOG_LEVEL: 'warn',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector,
      OTEL_SERVICE_NAME: 'order-service-e2e',
      // Nothing is exported before the shutdown's flush, which must then deliver every span.
      OTEL_BSP_SCHEDULE_DELAY: '3600000',
    };
    child = spawn(process.execPath, ['dist/src/main.js'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    child.once('exit', (code) => (exitCode = code));
    await answers200(`${base}/ready`, {
      failsWhen: () => (exitCode === null ? undefined : `the app exited: ${output}`),
    });
    adminId = randomUUID();
    admin = await bearer(loadConfig(env), ['ADMIN'], adminId);
  });

  afterAll(async () => {
    if (child && exitCode === null) child.kill('SIGKILL');
    await new Promise((resolve) => receiver?.close(resolve));
  });

  const call = (
    method: string,
    url: string,
    init: { body?: unknown; headers?: Record<string, string> } = {},
  ) =>
    fetch(`${base}${url}`, {
      method,
      headers: {
        authorization: admin,
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    });

  it('exports one trace per request and job, with the ids the service reports, flushed on shutdown', async () => {
    // The traffic: a product, then an order create, a problem and an export, each under a caller's trace.
    const product = await call('POST', '/api/v1/products', {
      body: { name: 'Traced teapot', price: 12.5, stock: 50, status: 'ACTIVE' },
    });
    expect(product.status).toBe(201);
    const { productId } = (await product.json()) as { productId: string };

    const create = callerTraceparent();
    const note = `note-${randomUUID()}`;
    const idempotencyKey = randomUUID();
    const created = await call('POST', '/api/v1/orders', {
      headers: { traceparent: create.header, 'idempotency-key': idempotencyKey },
      body: { items: [{ productId, quantity: 2 }], note },
    });
    expect(created.status).toBe(201);
    const createServer = parseTraceparentHeader(created.headers.get('traceparent'));
    expect(createServer.traceId).toBe(create.traceId);
    expect(createServer.spanId).not.toBe(create.spanId);

    const missing = callerTraceparent();
    const notFound = await call('GET', `/api/v1/orders/${randomUUID()}`, {
      headers: { traceparent: missing.header },
    });
    expect(notFound.status).toBe(404);
    const problem = (await notFound.json()) as { code: string; traceId: string };
    expect(problem.traceId).toBe(notFound.headers.get('traceparent'));
    const notFoundServer = parseTraceparentHeader(problem.traceId);
    expect(notFoundServer.traceId).toBe(missing.traceId);

    const exporting = callerTraceparent();
    const started = await call('POST', `/api/v1/customers/${adminId}/export`, {
      headers: { traceparent: exporting.header },
      body: { format: 'CSV' },
    });
    expect(started.status).toBe(202);
    const exportServer = parseTraceparentHeader(started.headers.get('traceparent'));
    const location = String(started.headers.get('location'));
    await until(
      'the export to complete',
      async () => {
        const task = (await (await call('GET', location)).json()) as { status: string };
        if (task.status === 'FAILED') throw new Error(`export ${task.status}`);
        return task.status === 'COMPLETED';
      },
      { intervalMs: 100 },
    );
    expect((await fetch(`${base}/health`)).status).toBe(200);

    // Nothing before the shutdown (the batch delay is an hour); everything after it.
    expect(exports).toHaveLength(0);
    child.kill('SIGTERM');
    // It exits by itself (within its hard stop: exit 1 past it).
    await until('the app to exit', () => exitCode !== null, { intervalMs: 50 });
    expect(exitCode).toBe(0);
    expect(exportPaths.length).toBeGreaterThan(0);
    for (const p of exportPaths) expect(p).toBe('POST /v1/traces application/json');
    const service = exports[0].resourceSpans[0].resource.attributes.find((a) => a.key === 'service.name');
    expect(service?.value.stringValue).toBe('order-service-e2e');

    // The order create: the server span continues the caller's span and is the one the response named.
    const createTrace = traceSpans(create.traceId);
    const byId = new Map(createTrace.map((s) => [s.spanId, s]));
    const server = byId.get(createServer.spanId);
    expect(server).toMatchObject({ kind: SERVER, name: 'POST /api/v1/orders', parentSpanId: create.spanId });
    expect(attr(server as OtlpSpan, 'http.route')).toBe('/api/v1/orders');
    expect(attr(server as OtlpSpan, 'http.response.status_code')).toBe(201);
    expect(createTrace.filter((s) => s.kind === SERVER)).toHaveLength(1);

    const statements = createTrace.filter(
      (s) => attr(s, 'db.system.name') === 'postgresql' && s.kind === CLIENT,
    );
    const queries = statements.filter((s) => attr(s, 'db.query.text') !== undefined);
    expect(queries.length).toBeGreaterThanOrEqual(2);
    for (const s of statements) expect(descendsFrom(s, createServer.spanId, byId)).toBe(true);
    expect(queries.some((s) => /INSERT INTO orders/i.test(String(attr(s, 'db.query.text'))))).toBe(true);

    if (runRedis) {
      const commands = createTrace.filter((s) => attr(s, 'db.system.name') === 'redis');
      expect(commands.length).toBeGreaterThanOrEqual(1);
      for (const s of commands) {
        expect(descendsFrom(s, createServer.spanId, byId)).toBe(true);
        expect(String(attr(s, 'db.query.text'))).toMatch(/^[a-z]+$/);
      }
    }

    // No parameter value, body, key or token in any attribute of the trace.
    const attributeText = JSON.stringify(createTrace.map((s) => s.attributes));
    for (const secret of [note, idempotencyKey, productId, admin.slice('Bearer '.length)]) {
      expect(attributeText).not.toContain(secret);
    }
    expect(createTrace.some((s) => s.attributes.some((a) => a.key === 'db.postgresql.values'))).toBe(false);

    // The problem's traceId names the exported server span of its request.
    const notFoundSpan = traceSpans(missing.traceId).find((s) => s.spanId === notFoundServer.spanId);
    expect(notFoundSpan).toMatchObject({ kind: SERVER, name: 'GET /api/v1/orders/:orderId' });
    expect(attr(notFoundSpan as OtlpSpan, 'http.response.status_code')).toBe(404);

    // The export: request → producer span → consumer span (the job run) → its statements, one trace.
    const exportTrace = traceSpans(exporting.traceId);
    const exportById = new Map(exportTrace.map((s) => [s.spanId, s]));
    const producer = exportTrace.find((s) => s.kind === PRODUCER);
    const consumer = exportTrace.find((s) => s.kind === CONSUMER);
    expect(producer?.name).toBe('send customer-export');
    expect(consumer?.name).toBe('process customer-export');
    expect(descendsFrom(producer as OtlpSpan, exportServer.spanId, exportById)).toBe(true);
    expect(consumer?.parentSpanId).toBe(producer?.spanId);
    expect(attr(consumer as OtlpSpan, 'messaging.destination.name')).toBe('customer-export');
    const jobStatements = exportTrace.filter(
      (s) =>
        attr(s, 'db.system.name') === 'postgresql' && descendsFrom(s, String(consumer?.spanId), exportById),
    );
    expect(jobStatements.some((s) => /INSERT INTO exports/i.test(String(attr(s, 'db.query.text'))))).toBe(
      true,
    );

    // Probes are not traced.
    expect(spans().some((s) => attr(s, 'url.path') === '/health')).toBe(false);
  });

  it('loads nothing of OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is unset', () => {
    const loaded = (endpoint: string | undefined): number => {
      const env = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint };
      if (endpoint === undefined) delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
      const script = `
        const { stopTelemetry } = require('./dist/src/platform/telemetry/start.js');
        require('pg'); require('ioredis'); require('node:http');
        const loaded = Object.keys(require.cache).filter((f) => f.includes('@opentelemetry'));
        console.log(JSON.stringify(loaded.length));
        stopTelemetry();`;
      return JSON.parse(
        execFileSync(process.execPath, ['-e', script], { cwd: ROOT, env }).toString(),
      ) as number;
    };
    expect(loaded(undefined)).toBe(0);
    expect(loaded('http://127.0.0.1:9')).toBeGreaterThan(0);
  });
});
