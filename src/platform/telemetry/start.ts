import { startTelemetry, stopTelemetry } from './telemetry';

/**
 * Imported first by the entry points (src/main.ts, src/worker.ts), before anything requires pg, ioredis or
 * http, which OpenTelemetry's instrumentations patch as they are required.
 */
startTelemetry();

export { stopTelemetry };
