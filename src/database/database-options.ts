import { DataSourceOptions } from 'typeorm';
import { migrations } from '../../migrations';
import { TypeOrmLogger } from './typeorm-logger';

/** Bounds on what one session of the service may hold (settings DB_STATEMENT_TIMEOUT_MS and friends). */
export interface SessionLimits {
  /** A statement running longer is cancelled (SQLSTATE 57014). */
  statementTimeoutMs: number;
  /** A transaction left idle longer ends its session: its locks and connection are freed. */
  idleInTransactionTimeoutMs: number;
}

/**
 * Server settings of every session: JIT compilation costs tens of milliseconds per statement and pays off
 * only for long analytical queries (this service runs short ones and chunks its reports), so it is off;
 * time stamps are printed in UTC whatever the server's or database's TimeZone (a zone with a local mean
 * time offset, as Europe/Moscow before 1919, prints offsets such as +02:30:17, which `Date` cannot parse);
 * the limits, when given, bound a stuck statement or a forgotten transaction (migrations run without them).
 */
function sessionOptions(limits?: SessionLimits): string {
  const settings = ['-c jit=off', '-c TimeZone=UTC'];
  if (limits) {
    settings.push(`-c statement_timeout=${limits.statementTimeoutMs}`);
    settings.push(`-c idle_in_transaction_session_timeout=${limits.idleInTransactionTimeoutMs}`);
  }
  return settings.join(' ');
}

/** One place for the TypeORM options: the app, the CLI data source and the test harness share them. */
export function databaseOptions(url: string, limits?: SessionLimits): DataSourceOptions {
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
      options: sessionOptions(limits),
    },
  };
}
