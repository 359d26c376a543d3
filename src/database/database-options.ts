import { DataSourceOptions } from 'typeorm';
import { migrations } from '../../migrations';
import { TypeOrmLogger } from './typeorm-logger';

/**
 * One place for the TypeORM options: the app, the CLI data source and the test harness share them. No startup
 * options: a transaction pooler would not pass them on, so every setting the service relies on is set by
 * each transaction itself (transaction-settings.ts). The pool's clients pipeline (`pipeline`): a statement
 * outside a transaction goes out together with its `BEGIN` and `COMMIT` (pooled-statements.ts), one round
 * trip; for a caller that awaits each answer before its next statement, as TypeORM's query runners do,
 * nothing changes.
 */
export function databaseOptions(url: string): DataSourceOptions {
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
      pipeline: true,
    },
  };
}
