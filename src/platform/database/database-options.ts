import { DataSourceOptions } from 'typeorm';
import { migrations } from '../../../migrations';
import { MIGRATION_SETTINGS, SessionSettings, startupOptions } from './session-limits';
import { TypeOrmLogger } from './typeorm-logger';

/**
 * One place for the TypeORM options: the app, the CLI data source, the scripts and the test harness share
 * them. `settings` are asked for when each connection opens (the startup `options`): the service's limits for
 * the app; for everything else (migrations above all) no limit, overriding the role's defaults. A transaction
 * pooler drops startup options (`ignore_startup_parameters = options`): behind one the role's defaults hold
 * (session-limits.ts).
 */
export function databaseOptions(
  url: string,
  settings: Partial<SessionSettings> = MIGRATION_SETTINGS,
): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    migrations,
    synchronize: false,
    migrationsRun: false,
    migrationsTransactionMode: 'each',
    logging: ['error', 'warn'],
    logger: new TypeOrmLogger(),
    maxQueryExecutionTime: 2_000,
    extra: {
      max: 10,
      connectionTimeoutMillis: 5_000,
      application_name: 'order-service',
      options: startupOptions(settings),
    },
  };
}
