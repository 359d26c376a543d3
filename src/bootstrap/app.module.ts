import { DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from '../platform/auth/auth.module';
import { AppConfig } from '../platform/config/app-config';
import { AppConfigModule } from '../platform/config/config.module';
import { DatabaseModule } from '../platform/database/database.module';
import { DeliveryAddressesModule } from '../modules/delivery-addresses/delivery-addresses.module';
import { EVENTS_MAINTENANCE_QUEUE } from '../modules/events/event-maintenance.service';
import { EVENT_SUBSCRIBERS_QUEUE } from '../modules/events/event-subscribers.service';
import { EventsModule } from '../modules/events/events.module';
import { EncryptionModule } from '../platform/encryption/encryption.module';
import { FilesModule } from '../modules/files/files.module';
import { HealthModule } from '../platform/health/health.module';
import { HttpConventionsModule } from '../platform/http/http-conventions.module';
import { IDEMPOTENCY_MAINTENANCE_QUEUE } from '../platform/idempotency/idempotency.cleanup';
import { IdempotencyModule } from '../platform/idempotency/idempotency.module';
import { MetricsModule } from '../platform/metrics/metrics.module';
import { OrdersModule } from '../modules/orders/orders.module';
import { ProblemModule } from '../platform/problem/problem.module';
import { ProductsModule } from '../modules/products/products.module';
import { QueueModule } from '../platform/queue/queue.module';
import { RateLimitModule } from '../platform/rate-limit/rate-limit.module';
import { RedisModule } from '../platform/redis/redis.module';
import { StorageModule } from '../platform/storage/storage.module';
import { TASK_QUEUES } from '../modules/tasks/task-dispatcher.service';
import { MAINTENANCE_QUEUE } from '../modules/tasks/task-maintenance.service';
import { TasksModule } from '../modules/tasks/tasks.module';
import { UsersModule } from '../modules/users/users.module';
import { ValidationModule } from '../platform/validation/validation.module';
import { VersioningModule } from '../platform/versioning/versioning.module';
import { WEBHOOK_QUEUE } from '../modules/webhooks/webhook-delivery.processor';
import { WebhooksModule } from '../modules/webhooks/webhooks.module';

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
