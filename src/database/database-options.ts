import { DataSourceOptions } from 'typeorm';
import { migrations } from '../../migrations';

/** One place for the TypeORM options: the app, the CLI data source and the test harness share them. */
export function databaseOptions(url: string): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    migrations,
    synchronize: false,
    migrationsRun: false,
    migrationsTransactionMode: 'each',
    logging: ['error'],
    extra: {
      max: 10,
      connectionTimeoutMillis: 5_000,
      application_name: 'order-service',
      // JIT compilation costs tens of milliseconds per statement and pays off only for long analytical
      // queries; this service runs short ones (and chunks its reports), so it is off for its sessions.
      options: '-c jit=off',
    },
  };
}
