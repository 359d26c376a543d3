import { Global, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { databaseOptions } from './database-options';
import { runMigrationsLocked } from './migrations-runner';
import { PooledStatements } from './pooled-statements';
import { TransactionSettings } from './transaction-settings';
import { Transactions } from './transactions';

/**
 * TypeORM's DataSource (migrations applied first), every transaction of it given the service's settings, the
 * services' transactions (Transactions) and the pooled statements beside them, for every module.
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
          ...databaseOptions(config.database.url),
          autoLoadEntities: true,
          migrationsRun: config.database.migrationsRun,
        };
      },
      // Migrations finish (under a lock) before any provider can get the DataSource; they run on a
      // pool of their own without the transaction limits (an index build may take long): two connections,
      // one holding the advisory lock (a session lock: migrations connect past any pooler), one migrating.
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
  providers: [TransactionSettings, PooledStatements, Transactions],
  exports: [PooledStatements, Transactions],
})
export class DatabaseModule {}
