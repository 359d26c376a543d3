import { AsyncLocalStorage } from 'node:async_hooks';
import { randomFillSync } from 'node:crypto';

/** W3C Trace Context of one unit of work (an HTTP request or a queued job). */
export interface TraceContext {
  traceId: string;
  spanId: string;
  /** The caller's span when the trace was continued. */
  parentSpanId?: string;
  sampled: boolean;
  /** This server span as a `traceparent` header value. */
  traceparent: string;
  /** The span source's own handle of this span (OpenTelemetry's context), when one made it; opaque here. */
  handle?: unknown;
}

/** A job's span: where it is queued, and which run of it this is. */
export interface JobSpan {
  /** The queue backend (`bullmq`, `in-process`). */
  system: string;
  queue: string;
  name: string;
  id?: string;
  attempt?: number;
}

/**
 * Where spans come from when OpenTelemetry is on (src/platform/telemetry registers one): the service then reports
 * OpenTelemetry's ids, so its `traceparent` headers, problem `traceId`s and log lines name the spans it
 * exports. Without one (the default) the service makes its own ids, as below, and nothing else changes.
 */
export interface SpanSource {
  /** The server span the HTTP instrumentation started for the request in hand, named after its route. */
  serverSpan(method: string, route: string | undefined): TraceContext | undefined;
  /** Runs `fn` with the trace's span current in the source's own context as well. */
  enter<T>(trace: TraceContext, fn: () => T): T;
  /** A producer span around an enqueue; `fn` gets the traceparent the job carries. */
  produce<R>(job: JobSpan, fn: (traceparent: string) => Promise<R>): Promise<R>;
  /**
   * A consumer span around one run of a job, continuing the producer's trace; errors for which `expected`
   * holds (a hand-back on shutdown) end it without an error status.
   */
  consume<R>(
    job: JobSpan,
    traceparent: string | undefined,
    fn: (trace: TraceContext) => Promise<R>,
    expected?: (error: unknown) => boolean,
  ): Promise<R>;
}

let source: SpanSource | undefined;

/** Registers the span source (once, at start, before any request); undefined goes back to the service's own. */
export function useSpanSource(next: SpanSource | undefined): void {
  source = next;
}

export function spanSource(): SpanSource | undefined {
  return source;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** Parses a `traceparent` header; null for a malformed value or all-zero ids (W3C Trace Context §3.2). */
export function parseTraceparent(
  value: string | undefined,
): { traceId: string; parentSpanId: string; flags: number } | null {
  if (!value) return null;
  const match = TRACEPARENT.exec(value.trim());
  if (!match) return null;
  const [, version, traceId, parentSpanId, flags, rest] = match;
  if (version === 'ff') return null;
  if (version === '00' && rest !== undefined) return null;
  if (/^0+$/.test(traceId) || /^0+$/.test(parentSpanId)) return null;
  return { traceId, parentSpanId, flags: parseInt(flags, 16) };
}

export function formatTraceparent(traceId: string, spanId: string, sampled: boolean): string {
  return `00-${traceId}-${spanId}-${sampled ? '01' : '00'}`;
}

// Random ids come from a pool refilled 4 KiB at a time: one kernel call per ~500 spans instead of one each.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomHex(bytes: number): string {
  if (poolOffset + bytes > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += bytes;
  return pool.toString('hex', poolOffset - bytes, poolOffset);
}

/** Continues the incoming trace with a new span, or starts a new trace. */
export function startSpan(incoming: string | undefined): TraceContext {
  const parent = parseTraceparent(incoming);
  const traceId = parent?.traceId ?? randomHex(16);
  const spanId = randomHex(8);
  const sampled = parent ? (parent.flags & 1) === 1 : true;
  return {
    traceId,
    spanId,
    parentSpanId: parent?.parentSpanId,
    sampled,
    traceparent: formatTraceparent(traceId, spanId, sampled),
  };
}

/**
 * The server span of an HTTP request: the span source's, when it traced the request, else the service's own
 * continuation of the incoming `traceparent`.
 */
export function serverTrace(
  incoming: string | undefined,
  method: string,
  route: string | undefined,
): TraceContext {
  return source?.serverSpan(method, route) ?? startSpan(incoming);
}

const storage = new AsyncLocalStorage<TraceContext>();

/** Trace of the current request or job, if any: read by the logger, the problem filter and producers. */
export function currentTrace(): TraceContext | undefined {
  return storage.getStore();
}

export function runInTrace<T>(trace: TraceContext, fn: () => T): T {
  const from = source;
  return storage.run(trace, from ? () => from.enter(trace, fn) : fn);
}
