import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Span,
  type SpanContext,
} from '@opentelemetry/api';
import { ATTR_ERROR_TYPE, ATTR_HTTP_ROUTE } from '@opentelemetry/semantic-conventions';
import {
  formatTraceparent,
  parseTraceparent,
  type JobSpan,
  type SpanSource,
  type TraceContext,
} from '../tracing/trace-context';

// Messaging attributes are still incubating in the semantic conventions, which advise copying them.
const ATTR_MESSAGING_SYSTEM = 'messaging.system';
const ATTR_MESSAGING_DESTINATION_NAME = 'messaging.destination.name';
const ATTR_MESSAGING_OPERATION_TYPE = 'messaging.operation.type';
const ATTR_MESSAGING_MESSAGE_ID = 'messaging.message.id';
const ATTR_JOB_NAME = 'order_service.job.name';
const ATTR_JOB_ATTEMPT = 'order_service.job.attempt';

/**
 * The service's trace context over OpenTelemetry's spans: the ids the service reports are the ids of the
 * spans it exports, and entering a trace enters OpenTelemetry's context too, so the instrumented `pg` and
 * `ioredis` calls made there become children of the right span.
 */
export class OtelSpanSource implements SpanSource {
  private readonly tracer = trace.getTracer('order-service');

  serverSpan(method: string, route: string | undefined): TraceContext | undefined {
    const active = context.active();
    const span = trace.getSpan(active);
    // No span: the HTTP instrumentation left the request out (operational endpoints) or it was injected.
    if (!span) return undefined;
    if (route !== undefined) {
      // Fastify's template (`/api/v1/orders/:orderId`), as the `route` label of the request metrics.
      span.setAttribute(ATTR_HTTP_ROUTE, route);
      span.updateName(`${method} ${route}`);
    }
    return toTrace(span.spanContext(), active);
  }

  enter<T>(trace: TraceContext, fn: () => T): T {
    return context.with(contextOf(trace), fn);
  }

  produce<R>(job: JobSpan, fn: (traceparent: string) => Promise<R>): Promise<R> {
    const parent = context.active();
    const span = this.tracer.startSpan(
      `send ${job.queue}`,
      { kind: SpanKind.PRODUCER, attributes: jobAttributes(job, 'send') },
      parent,
    );
    const { traceId, spanId, traceFlags } = span.spanContext();
    const traceparent = formatTraceparent(traceId, spanId, sampled(traceFlags));
    return settle(
      span,
      context.with(trace.setSpan(parent, span), () => fn(traceparent)),
    );
  }

  consume<R>(
    job: JobSpan,
    traceparent: string | undefined,
    fn: (trace: TraceContext) => Promise<R>,
    expected?: (error: unknown) => boolean,
  ): Promise<R> {
    const parent = remoteContext(traceparent);
    const span = this.tracer.startSpan(
      `process ${job.queue}`,
      { kind: SpanKind.CONSUMER, attributes: jobAttributes(job, 'process') },
      parent,
    );
    const active = trace.setSpan(parent, span);
    return settle(
      span,
      context.with(active, () => fn(toTrace(span.spanContext(), active))),
      expected,
    );
  }
}

function sampled(flags: number): boolean {
  return (flags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED;
}

function toTrace(span: SpanContext, handle: Context): TraceContext {
  const isSampled = sampled(span.traceFlags);
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    sampled: isSampled,
    traceparent: formatTraceparent(span.traceId, span.spanId, isSampled),
    handle,
  };
}

/**
 * OpenTelemetry's context for a trace: its own, or for a trace the service made itself (no handle: a task
 * dispatched again by the reconciler continues the request that started it) the span it continued, since
 * the service's own spans are not exported.
 */
function contextOf(trace: TraceContext): Context {
  if (trace.handle) return trace.handle as Context;
  return remoteContext(formatTraceparent(trace.traceId, trace.parentSpanId ?? trace.spanId, trace.sampled));
}

function remoteContext(traceparent: string | undefined): Context {
  const parent = parseTraceparent(traceparent);
  if (!parent) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: parent.traceId,
    spanId: parent.parentSpanId,
    traceFlags: parent.flags & TraceFlags.SAMPLED,
    isRemote: true,
  });
}

function jobAttributes(job: JobSpan, operation: 'send' | 'process'): Attributes {
  const attributes: Attributes = {
    [ATTR_MESSAGING_SYSTEM]: job.system,
    [ATTR_MESSAGING_DESTINATION_NAME]: job.queue,
    [ATTR_MESSAGING_OPERATION_TYPE]: operation,
    [ATTR_JOB_NAME]: job.name,
  };
  if (job.id) attributes[ATTR_MESSAGING_MESSAGE_ID] = job.id;
  if (job.attempt !== undefined) attributes[ATTR_JOB_ATTEMPT] = job.attempt;
  return attributes;
}

/**
 * Ends the span when the work settles. A failure is named by its type only: messages of database errors can
 * quote values, which never go into span attributes.
 */
async function settle<R>(span: Span, work: Promise<R>, expected?: (error: unknown) => boolean): Promise<R> {
  try {
    return await work;
  } catch (error: unknown) {
    if (!expected?.(error)) {
      const type = error instanceof Error ? error.name : typeof error;
      span.setAttribute(ATTR_ERROR_TYPE, type);
      span.setStatus({ code: SpanStatusCode.ERROR, message: type });
    }
    throw error;
  } finally {
    span.end();
  }
}
