// First: OpenTelemetry (when on) patches pg, ioredis and http as they are required.
import { stopTelemetry } from './platform/telemetry/start';
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createHttpApp } from './bootstrap/http-app';
import { loadConfigOrExit, onShutdownSignal, resolveDatabase } from './bootstrap/runtime';
import { exitWithError } from './platform/logging/app-logger';
import { runWorker } from './worker';

async function bootstrap(): Promise<void> {
  const loaded = loadConfigOrExit();
  if (loaded.app.role === 'worker') return runWorker(loaded);

  const { config, embedded } = await resolveDatabase(loaded);
  const app = await createHttpApp(config);
  onShutdownSignal(async () => {
    await app.close();
    await embedded?.stop();
    await stopTelemetry();
  });
  await app.listen({ port: config.http.port, host: config.http.host });
  // The one line a start writes at info (the framework's own start-up lines are debug).
  const database = embedded ? `; ${embedded.description}` : '';
  new Logger('Main').log(
    `listening on http://${config.http.host}:${config.http.port} (role ${config.app.role})${database}`,
  );
}

bootstrap().catch((error: unknown) => {
  exitWithError(`start-up failed: ${error instanceof Error ? error.message : String(error)}`, error);
});
