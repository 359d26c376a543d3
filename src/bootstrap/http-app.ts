import { VersioningType } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule, ModuleImports } from '../app.module';
import { AppConfig } from '../config/app-config';
import { AppLogger, createPinoLogger } from '../logging/app-logger';
import { ShutdownState } from '../health/shutdown-state';
import { MetricsService } from '../metrics/metrics.service';
import { setupOpenApi } from '../openapi/openapi';
import { registerTracing } from '../tracing/tracing.hooks';

/** Paths that live outside /api/v<N> (contract, Operational endpoints). */
export const OPERATIONAL_PATHS = ['health', 'ready', 'info', 'metrics'];

/**
 * Builds the HTTP application with every global mechanism wired; main.ts and the e2e tests both use it,
 * so tests exercise exactly what runs in production.
 */
export async function createHttpApp(
  config: AppConfig,
  options: { extraImports?: ModuleImports } = {},
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: config.http.bodyLimitBytes,
    trustProxy: true,
    return503OnClosing: true,
    routerOptions: { caseSensitive: true, ignoreTrailingSlash: false },
  });
  const fastify = adapter.getInstance();
  registerTracing(fastify);
  // JSON Merge Patch bodies are JSON; plain text is no body format of this API (415).
  fastify.addContentTypeParser(
    'application/merge-patch+json',
    { parseAs: 'string' },
    fastify.getDefaultJsonParser('error', 'error'),
  );
  fastify.removeContentTypeParser('text/plain');

  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forHttp(config, options.extraImports),
    adapter,
    {
      logger: new AppLogger(createPinoLogger(config.app.logLevel)),
      abortOnError: false,
    },
  );
  app.setGlobalPrefix('api', { exclude: OPERATIONAL_PATHS });
  app.enableVersioning({ type: VersioningType.URI, prefix: 'v' });
  app.get(MetricsService).instrument(fastify);
  // Responses finished while shutting down close their keep-alive connection, so the server can drain.
  const shutdown = app.get(ShutdownState);
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (shutdown.isShuttingDown) void reply.header('connection', 'close');
    done(null, payload);
  });
  setupOpenApi(app, config);
  await app.init();
  return app;
}
