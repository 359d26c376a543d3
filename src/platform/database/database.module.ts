import { Global, Inject, Logger, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { databaseOptions } from './database-options';
import { DatabasePool } from './database-pool';
import { runMigrationsLocked } from './migrations-runner';
import { REDIS_CLIENT, type RedisClient } from '../redis/redis.module';
import { MemoryWritePositions, ReadYourWrites, RedisWritePositions } from './read-your-writes';
import { ReplicaSet } from './replicas';
import { SessionLimits, sessionSettings } from './session-limits';
import { Sql } from './sql';
import { StatementRunner } from './statement-runner';
import { TimePartitions } from './time-partitions';
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
    {
      // The replicas' pools connect as the primary's do (the service's session limits, asked for at connect).
      provide: ReplicaSet,
      inject: [DatabasePool, APP_CONFIG],
      useFactory: (primary: DatabasePool, config: AppConfig) => {
        const { urls, maxLagMs } = config.database.replicas;
        const settings = sessionSettings(config.database.limits);
        return new ReplicaSet(
          urls,
          (url) => new Pool({ connectionString: url, ...databaseOptions(url, settings).extra }),
          primary.pool,
          maxLagMs,
        );
      },
    },
    {
      provide: ReadYourWrites,
      inject: [ReplicaSet, StatementRunner, APP_CONFIG, REDIS_CLIENT],
      useFactory: (replicas: ReplicaSet, runner: StatementRunner, config: AppConfig, redis: RedisClient) => {
        if (!replicas.enabled) return new ReadYourWrites(undefined, runner);
        // Long enough that any replica still in use has replayed the write: within the bound at its last
        // sample, taken at most a sampling interval ago.
        const ttlMs = 2 * replicas.maxLagMs + 2 * replicas.sampleEveryMs;
        const positions = redis
          ? new RedisWritePositions(redis, config.redis.keyPrefix, ttlMs)
          : new MemoryWritePositions(ttlMs);
        return new ReadYourWrites(positions, runner);
      },
    },
    Transactions,
    Sql,
    SessionLimits,
    TimePartitions,
  ],
  exports: [Sql, Transactions, SessionLimits, ReplicaSet, ReadYourWrites, TimePartitions],
})
export class DatabaseModule implements OnModuleInit, OnApplicationShutdown {
  constructor(@Inject(ReplicaSet) private readonly replicas: ReplicaSet) {}

  /** The replicas' first sample before the first request: until then none would serve. */
  async onModuleInit(): Promise<void> {
    await this.replicas.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.replicas.close();
  }
}
