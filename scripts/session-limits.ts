import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { loadConfigOrExit } from '../src/bootstrap/runtime';
import { databaseOptions } from '../src/platform/database/database-options';
import { applyRoleDefaults, sessionSettings } from '../src/platform/database/session-limits';
import { exitWithError } from '../src/platform/logging/app-logger';

/**
 * `npm run db:session-limits` (in the image: `node dist/scripts/session-limits.js`): makes the service's
 * session limits (DB_STATEMENT_TIMEOUT_MS, DB_IDLE_IN_TRANSACTION_TIMEOUT_MS, and jit off) the defaults of the
 * role DATABASE_URL connects as, in its database, so they hold behind a transaction pooler, which drops the
 * startup options that carry them on a direct connection. Run it with the service's own DATABASE_URL (the
 * role the service connects as; an ordinary role may set its own). The migrations Job runs it too.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const url = config.database.url;
  if (!url) exitWithError('Invalid configuration: DATABASE_URL is required to set the session limits');
  const dataSource = await new DataSource({ ...databaseOptions(url), migrations: [] }).initialize();
  try {
    const settings = sessionSettings(config.database.limits);
    const { role, database } = await applyRoleDefaults(dataSource, settings);
    new Logger('Database').log({
      msg: 'session limits set as the role defaults',
      role,
      database,
      ...settings,
    });
  } finally {
    await dataSource.destroy();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) =>
    exitWithError(`session limits not set: ${error instanceof Error ? error.message : String(error)}`),
);
