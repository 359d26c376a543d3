import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AppConfig } from '../config/app-config';

/** Builds the OpenAPI document and serves /docs outside production. */
export function setupOpenApi(_app: NestFastifyApplication, _config: AppConfig): void {
  // filled in by the OpenAPI work
}
