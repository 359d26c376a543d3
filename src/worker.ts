import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './bootstrap/app.module';
import { loadConfigOrExit, onShutdownSignal, resolveDatabase } from './bootstrap/runtime';
import { AppConfig } from './config/app-config';
import { AppLogger, createPinoLogger } from './logging/app-logger';

/** The worker process: a Nest application context (no HTTP) running the queue processors. */
export async function runWorker(loaded: AppConfig): Promise<void> {
  const { config, embedded } = await resolveDatabase({ ...loaded, app: { ...loaded.app, role: 'worker' } });
  const app = await NestFactory.createApplicationContext(AppModule.forWorker(config), {
    logger: new AppLogger(createPinoLogger(config.app.logLevel)),
    abortOnError: false,
  });
  onShutdownSignal(async () => {
    await app.close();
    await embedded?.stop();
  });
  await app.init();
  new Logger('Worker').log('worker started');
}

if (require.main === module) {
  runWorker(loadConfigOrExit()).catch((error: unknown) => {
    console.error(`Start-up failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
