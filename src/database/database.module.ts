import { Global, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { databaseOptions } from './database-options';
import { DatabasePool } from './database-pool';
import { runMigrationsLocked } from './migrations-runner';
import { SessionLimits, sessionSettings } from './session-limits';
import { Sql } from './sql';
import { StatementRunner } from './statement-runner';
import { Transactions } from './transactions';

/**
 * TypeORM's DataSource (migrations applied first) and its pool, with the service's session limits; the one
 * way to run SQL on it (`Sql` for reads, `Transactions` for transactions, both through `StatementRunner`), and
 * the start-up check of the limits the sessions actually have, for every module.
 */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => {
        if (!config.database.url)
          throw new Error('DATABASE_URL was not resolved before the application started');
        return {
          ...databaseOptions(config.database.url, sessionSettings(config.database.limits)),
          autoLoadEntities: true,
          migrationsRun: config.database.migrationsRun,
        };
      },
      // Migrations finish (under a lock) before any provider can get the DataSource; they run on a pool of
      // their own without the service's limits (an index build may take long): two connections, one holding
      // the advisory lock (a session lock: migrations connect past any pooler), one migrating.
      dataSourceFactory: async (options) => {
        const url = (options as { url?: string } | undefined)?.url;
        if (!options || !url) throw new Error('missing TypeORM options');
        if (options.migrationsRun) {
          const base = databaseOptions(url);
          const migrator = await new DataSource({ ...base, extra: { ...base.extra, max: 2 } }).initialize();
          try {
            const applied = await runMigrationsLocked(migrator);
            if (applied.length > 0) new Logger('Database').log(`applied migrations: ${applied.join(', ')}`);
          } finally {
            await migrator.destroy();
          }
        }
        return new DataSource({ ...options, migrationsRun: false }).initialize();
      },
    }),
  ],
  providers: [
    DatabasePool,
    {
      provide: StatementRunner,
      inject: [DataSource, APP_CONFIG],
      useFactory: (dataSource: DataSource, config: AppConfig) =>
        new StatementRunner(
          dataSource.logger,
          dataSource.options.maxQueryExecutionTime ?? Number.POSITIVE_INFINITY,
          config.database.preparedStatements,
        ),
    },
    Transactions,
    Sql,
    SessionLimits,
  ],
  exports: [Sql, Transactions, SessionLimits],
})
export class DatabaseModule {}
