import { Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { databaseOptions } from './database-options';
import { runMigrationsLocked } from './migrations-runner';

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
      // Migrations finish (under a lock) before any provider can get the DataSource.
      dataSourceFactory: async (options) => {
        if (!options) throw new Error('missing TypeORM options');
        const dataSource = await new DataSource({ ...options, migrationsRun: false }).initialize();
        if (options.migrationsRun) {
          const applied = await runMigrationsLocked(dataSource);
          if (applied.length > 0) new Logger('Database').log(`applied migrations: ${applied.join(', ')}`);
        }
        return dataSource;
      },
    }),
  ],
})
export class DatabaseModule {}
