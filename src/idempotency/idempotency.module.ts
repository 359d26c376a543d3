import { Global, Module } from '@nestjs/common';
import { IdempotencyCleanup } from './idempotency.cleanup';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyRecorder } from './idempotency.recorder';
import { IdempotencyStore } from './idempotency.store';

/**
 * Idempotency-Key handling for POST and PATCH handlers marked `@Idempotent()` (PostgreSQL store, table
 * idempotency_keys): claim in the interceptor, record in an onSend hook, purge of expired keys.
 */
@Global()
@Module({
  providers: [IdempotencyStore, IdempotencyRecorder, IdempotencyCleanup, IdempotencyInterceptor],
  // Global: `@Idempotent()` binds the interceptor on handlers of any module.
  exports: [IdempotencyStore, IdempotencyCleanup, IdempotencyRecorder, IdempotencyInterceptor],
})
export class IdempotencyModule {}
