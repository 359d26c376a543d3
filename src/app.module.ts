import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from './config/app-config';
import { AppConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { MetricsModule } from './metrics/metrics.module';
import { ProblemModule } from './problem/problem.module';
import { QueueModule } from './queue/queue.module';
import { RedisModule } from './redis/redis.module';

/** Infrastructure shared by the HTTP application and the worker. */
function coreModules(config: AppConfig) {
  return [AppConfigModule.forRoot(config), DatabaseModule, RedisModule, QueueModule, ProblemModule];
}

/** Domain modules: controllers are inert in the worker, processors only take jobs where the role runs them. */
const domainModules: DynamicModule['imports'] = [];

@Module({})
export class AppModule {
  /** The HTTP application (APP_ROLE api or all). */
  static forHttp(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [...coreModules(config), MetricsModule, HealthModule, ...(domainModules ?? [])],
    };
  }

  /** The worker process (APP_ROLE worker): no HTTP server, processors only. */
  static forWorker(config: AppConfig): DynamicModule {
    return { module: AppModule, imports: [...coreModules(config), ...(domainModules ?? [])] };
  }
}
