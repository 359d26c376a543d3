import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { databaseOptions } from '../src/database/database-options';
import { runMigrationsLocked } from '../src/database/migrations-runner';
import { exitWithError, useProcessLogger } from '../src/logging/app-logger';

/**
 * `npm run migration:run` and the migrations Job (`node dist/scripts/migrate.js`): applies pending migrations
 * under the same lock the service takes; `--revert` undoes the last one. Every line it prints is one JSON
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
