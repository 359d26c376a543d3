import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { databaseOptions } from '../src/platform/database/database-options';
import { runMigrationsLocked } from '../src/platform/database/migrations-runner';
import { applyRoleDefaults, sessionSettings } from '../src/platform/database/session-limits';
import { transactionLimits } from '../src/platform/config/app-config';
import { exitWithError, useProcessLogger } from '../src/platform/logging/app-logger';

/**
 * `npm run migration:run` and the migrations Job (`node dist/scripts/migrate.js`): applies pending migrations
 * under the same lock the service takes, then makes the service's session limits its role's defaults (as
 * `npm run db:session-limits` does: they must hold behind a pooler); `--revert` undoes the last migration.
 * Migrations run without those limits (an index build may take long). Every line it prints is one JSON
 * object, as everything the service runs in production prints (the TypeORM CLI prints coloured text).
 */
async function main(): Promise<void> {
  useProcessLogger(process.env.LOG_LEVEL ?? 'info');
  const url = process.env.DATABASE_URL;
  if (!url) exitWithError('Invalid configuration: DATABASE_URL is required to run migrations');
  const logger = new Logger('Migrations');
  const dataSource = await new DataSource(databaseOptions(url)).initialize();
  try {
    if (process.argv.includes('--revert')) {
      await dataSource.undoLastMigration({ transaction: 'each' });
      logger.log('reverted the last migration');
    } else {
      const applied = await runMigrationsLocked(dataSource);
      logger.log(
        applied.length === 0 ? 'no migrations to apply' : `applied migrations: ${applied.join(', ')}`,
      );
      const settings = sessionSettings(transactionLimits());
      const { role, database } = await applyRoleDefaults(dataSource, settings);
      logger.log({ msg: 'session limits set as the role defaults', role, database, ...settings });
    }
  } finally {
    await dataSource.destroy();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) =>
    exitWithError(`migrations failed: ${error instanceof Error ? error.message : String(error)}`),
);
