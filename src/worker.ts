// First: OpenTelemetry (when on) patches pg, ioredis and http as they are required.
import { stopTelemetry } from './platform/telemetry/start';
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { loadConfigOrExit, onShutdownSignal, resolveDatabase } from './bootstrap/runtime';
import { createWorkerApp } from './bootstrap/worker-app';
import { AppConfig } from './platform/config/app-config';
import { exitWithError } from './platform/logging/app-logger';

/**
 * The worker process (APP_ROLE=worker): queue processors, and the operational endpoints on PORT. On
 * SIGTERM readiness turns 503, running jobs stop at their next safe point and go back to the queue (or
 * finish), connections close.
 */
export async function runWorker(loaded: AppConfig): Promise<void> {
  const { config, embedded } = await resolveDatabase(
    { ...loaded, app: { ...loaded.app, role: 'worker' } },
    { attach: true },
  );
  const { context, server } = await createWorkerApp(config);
  onShutdownSignal(async () => {
    await context.close();
    await server.close();
    await embedded?.stop();
    await stopTelemetry();
  });
  await server.listen({ port: config.http.port, host: config.http.host });
  // The one line a start writes at info (the framework's own start-up lines are debug).
  const database = embedded ? `; ${embedded.description}` : '';
  new Logger('Worker').log(
    `worker started; operational endpoints on http://${config.http.host}:${config.http.port}${database}`,
  );
}

if (require.main === module) {
  runWorker(loadConfigOrExit()).catch((error: unknown) => {
    exitWithError(`start-up failed: ${error instanceof Error ? error.message : String(error)}`, error);
  });
}
