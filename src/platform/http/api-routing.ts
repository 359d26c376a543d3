import { type INestApplication, VersioningType } from '@nestjs/common';

/** Paths that live outside /api/v<N>: the operational endpoints. */
export const OPERATIONAL_PATHS = ['health', 'ready', 'info', 'metrics'];

/**
 * Business routes under `/api/v<N>/`: the global prefix and URI versioning, in
 * one place for the running app and the offline document builder, so both route alike.
 */
export function applyApiRouting(app: INestApplication): void {
  app.setGlobalPrefix('api', { exclude: OPERATIONAL_PATHS });
  app.enableVersioning({ type: VersioningType.URI, prefix: 'v' });
}
