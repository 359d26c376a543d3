import { Logger } from '@nestjs/common';
import { AppConfig, ConfigError, loadConfig, startupWarnings } from '../platform/config/app-config';
import type { EmbeddedDatabase } from '../platform/database/embedded/embedded-server';
import { exitWithError, useProcessLogger } from '../platform/logging/app-logger';

/**
 * Loads the configuration or stops the process with one line naming the bad setting, and logs the warnings
 * the settings call for. From here on every line the process writes is one JSON object, at the configured level.
 */
export function loadConfigOrExit(): AppConfig {
  useProcessLogger();
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) exitWithError(error.message);
    throw error;
  }
  useProcessLogger(config.app.logLevel);
  const logger = new Logger('Config');
  for (const warning of startupWarnings(config)) logger.warn(warning);
  return config;
}

type EmbeddedServerModule = typeof import('../platform/database/embedded/embedded-server');

/**
 * Without DATABASE_URL, starts the embedded PostgreSQL and points the configuration at it. With `attach`
 * (`npm run seed`, a worker next to `npm start`), the server `npm start` already runs on DATA_DIR is used.
 * Its code is loaded only then: the production image has no embedded PostgreSQL (a development dependency).
 */
export async function resolveDatabase(
  config: AppConfig,
  { attach = false }: { attach?: boolean } = {},
): Promise<{ config: AppConfig; embedded?: EmbeddedDatabase }> {
  if (config.database.url) return { config };
  const logger = new Logger('EmbeddedDatabase');
  // A conditional load, as the telemetry's: only a process without DATABASE_URL runs this code.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const embeddedServer = require('../platform/database/embedded/embedded-server') as EmbeddedServerModule;
  const embedded = await embeddedServer.startEmbeddedPostgres({
    dataDir: config.database.dataDir,
    warn: (m) => logger.warn(m),
    attach,
  });
  return {
    config: { ...config, database: { ...config.database, url: embedded.url, embedded: true } },
    embedded,
  };
}

/** The process exits this long after SIGTERM at the latest (the pod's grace period is sized from it). */
export const HARD_STOP_MS = 30_000;

/**
 * Graceful shutdown on SIGTERM/SIGINT: readiness turns 503, in-flight requests and running jobs finish,
 * connections close; a hard stop guarantees exit within 30 s.
 */
export function onShutdownSignal(close: () => Promise<void>): void {
  let closing = false;
  const handler = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    const logger = new Logger('Shutdown');
    logger.log(`${signal} received, shutting down`);
    setTimeout(() => {
      logger.error('shutdown took longer than 30 s, exiting');
      process.exit(1);
    }, HARD_STOP_MS).unref();
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error(`shutdown failed: ${String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}
