import { DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { AppConfig } from '../config/app-config';
import { AppConfigModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { DeliveryAddressesModule } from '../delivery-addresses/delivery-addresses.module';
import { EVENTS_MAINTENANCE_QUEUE } from '../events/event-maintenance.service';
import { EVENT_SUBSCRIBERS_QUEUE } from '../events/event-subscribers.service';
import { EventsModule } from '../events/events.module';
import { EncryptionModule } from '../encryption/encryption.module';
import { FilesModule } from '../files/files.module';
import { HealthModule } from '../health/health.module';
import { HttpConventionsModule } from '../http/http-conventions.module';
import { IDEMPOTENCY_MAINTENANCE_QUEUE } from '../idempotency/idempotency.cleanup';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { MetricsModule } from '../metrics/metrics.module';
import { OrdersModule } from '../orders/orders.module';
import { ProblemModule } from '../problem/problem.module';
import { ProductsModule } from '../products/products.module';
import { QueueModule } from '../queue/queue.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { RedisModule } from '../redis/redis.module';
import { StorageModule } from '../storage/storage.module';
import { TASK_QUEUES } from '../tasks/task-dispatcher.service';
import { MAINTENANCE_QUEUE } from '../tasks/task-maintenance.service';
import { TasksModule } from '../tasks/tasks.module';
import { UsersModule } from '../users/users.module';
import { ValidationModule } from '../validation/validation.module';
import { VersioningModule } from '../versioning/versioning.module';
import { WEBHOOK_QUEUE } from '../webhooks/webhook-delivery.processor';
import { WebhooksModule } from '../webhooks/webhooks.module';

export type ModuleImports = NonNullable<DynamicModule['imports']>;

/** Every job queue of the service: each module's processors take the jobs of theirs. */
const JOB_QUEUES = [
  ...Object.values(TASK_QUEUES),
  MAINTENANCE_QUEUE,
  EVENTS_MAINTENANCE_QUEUE,
  EVENT_SUBSCRIBERS_QUEUE,
  IDEMPOTENCY_MAINTENANCE_QUEUE,
  WEBHOOK_QUEUE,
];

/** Infrastructure shared by the HTTP application and the worker. */
function coreModules(config: AppConfig) {
  return [
    AppConfigModule.forRoot(config),
    DatabaseModule,
    RedisModule,
    QueueModule.forRoot(config, JOB_QUEUES),
    StorageModule,
    EncryptionModule,
    ProblemModule,
  ];
}

/**
 * Cross-cutting HTTP mechanisms. Order matters: global guards run in module order, so deprecation (headers
 * on every answer of a deprecated endpoint, 410 after its sunset) comes first, and the rate limit (which
 * counts unauthenticated callers by IP too) comes before authentication.
 */
const httpMechanisms = [
  VersioningModule,
  RateLimitModule,
  AuthModule,
  ValidationModule,
  HttpConventionsModule,
  IdempotencyModule,
];

/** Domain modules: controllers are inert in the worker, processors only take jobs where the role runs them. */
const domainModules: ModuleImports = [
  UsersModule,
  ProductsModule,
  DeliveryAddressesModule,
  EventsModule,
  OrdersModule,
  TasksModule,
  FilesModule,
  WebhooksModule,
];

@Module({})
export class AppModule {
  /** The HTTP application (APP_ROLE api or all). */
  static forHttp(config: AppConfig, extraImports: ModuleImports = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ...coreModules(config),
        MetricsModule,
        HealthModule,
        ...httpMechanisms,
        ...domainModules,
        ...extraImports,
      ],
    };
  }

  /**
   * The worker process (APP_ROLE worker): no business routes, processors only; metrics and health checks
   * for its operational server (bootstrap/worker-app.ts). Nest instantiates the interceptors controllers
   * declare in any application context, so the idempotency module (`@Idempotent()`) is there too.
   */
  static forWorker(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [...coreModules(config), MetricsModule, HealthModule, IdempotencyModule, ...domainModules],
    };
  }
}
