import { telemetrySettings } from '../config/app-config';
import type { RunningTelemetry } from './otel-sdk';

let running: RunningTelemetry | undefined;

/**
 * Starts OpenTelemetry tracing when `OTEL_EXPORTER_OTLP_ENDPOINT` is set. Otherwise nothing of the SDK is even
 * loaded: the service keeps its own trace ids and pays nothing. A bad value is left to the configuration
 * loader, which stops the process with one line naming it.
 */
export function startTelemetry(env: NodeJS.ProcessEnv = process.env): boolean {
  if (running) return true;
  let settings: ReturnType<typeof telemetrySettings>;
  try {
    settings = telemetrySettings(env);
  } catch {
    return false;
  }
  if (!settings.otlpEndpoint) return false;
  // A synchronous, conditional load: it must happen before pg, ioredis and http are required, and only when on.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sdk = require('./otel-sdk') as typeof import('./otel-sdk');
  running = sdk.startOpenTelemetry(settings);
  return true;
}

/** Flushes the spans still buffered; part of the graceful shutdown of both processes. */
export async function stopTelemetry(): Promise<void> {
  const stopping = running;
  running = undefined;
  await stopping?.shutdown();
}
