import type { IncomingMessage } from 'node:http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { TelemetrySettings } from '../config/app-config';
import { useSpanSource } from '../tracing/trace-context';
import { OtelSpanSource } from './otel-span-source';

/** Probes and scrapes: traced, they would bury the requests in spans every few seconds. */
const UNTRACED_PATHS = new Set(['/health', '/ready', '/info', '/metrics']);

function untraced(request: IncomingMessage): boolean {
  const url = request.url ?? '';
  const query = url.indexOf('?');
  return UNTRACED_PATHS.has(query === -1 ? url : url.slice(0, query));
}

export interface RunningTelemetry {
  /** Exports the spans still buffered, then stops. */
  shutdown(): Promise<void>;
}

/**
 * The OpenTelemetry SDK with traces only (metrics stay Prometheus', logs stdout's): spans of HTTP requests,
 * PostgreSQL statements (their text with placeholders, never parameter values) and Redis commands (the
 * command name only, never its arguments) inside a traced request or job, and the service's job spans;
 * exported in batches as OTLP/HTTP JSON to `OTEL_EXPORTER_OTLP_ENDPOINT` (the exporter and the sampler read
 * the standard OTEL_* variables). Must start before pg, ioredis and http are required: the instrumentations
 * patch them on require.
 */
export function startOpenTelemetry(
  settings: TelemetrySettings,
  spanProcessors?: SpanProcessor[],
): RunningTelemetry {
  const sdk = new NodeSDK({
    serviceName: settings.serviceName,
    ...(spanProcessors ? { spanProcessors } : { traceExporter: new OTLPTraceExporter() }),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: untraced,
        // Outgoing calls (a JWKS refresh) belong to a request's trace or to none.
        requireParentforOutgoingSpans: true,
      }),
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
    ],
  });
  sdk.start();
  useSpanSource(new OtelSpanSource());
  return {
    async shutdown() {
      useSpanSource(undefined);
      await sdk.shutdown();
    },
  };
}
