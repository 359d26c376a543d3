import { LoggerService, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import { AppModule, ModuleImports } from '../app.module';
import type { AppConfig } from '../../platform/config/app-config';
import { applyApiRouting } from '../../platform/http/api-routing';
import { buildOpenApiDocument } from './openapi-document';

/**
 * The document of the HTTP application without starting it: Nest's preview mode resolves the module graph
 * and reads the controllers' metadata but instantiates no provider, so no database, Redis or queue is
 * touched (`npm run openapi` works anywhere). Routing mirrors createHttpApp; a test checks that this
 * document equals the one the running app serves. `now` (default: the present) decides which deprecated
 * operations are past their sunset.
 */
export async function generateOpenApiDocument(
  config: AppConfig,
  options: { extraImports?: ModuleImports; logger?: LoggerService | LogLevel[]; now?: Date } = {},
): Promise<OpenAPIObject> {
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forHttp(config, options.extraImports),
    new FastifyAdapter(),
    // Nest's logger is process-wide: the default only hides the banner that preview mode prints.
    { preview: true, logger: options.logger ?? ['error'], abortOnError: false },
  );
  try {
    applyApiRouting(app);
    return buildOpenApiDocument(app, config, options.now);
  } finally {
    await app.close();
  }
}
