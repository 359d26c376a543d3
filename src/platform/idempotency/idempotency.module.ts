import { Global, Module } from '@nestjs/common';
import { HttpConventionsModule } from '../http/http-conventions.module';
import { IdempotencyCleanup } from './idempotency.cleanup';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyRecorder } from './idempotency.recorder';
import { IdempotencyStore } from './idempotency.store';

/**
 * Idempotency-Key handling for POST and PATCH handlers marked `@Idempotent()` (PostgreSQL store, table
 * idempotency_keys): claim in the interceptor; the outcome recorded in the request's transaction when it
 * commits (src/platform/http/request-transaction.ts); purge of expired keys.
 */
@Global()
@Module({
  imports: [HttpConventionsModule],
  providers: [IdempotencyStore, IdempotencyRecorder, IdempotencyCleanup, IdempotencyInterceptor],
  // Global: `@Idempotent()` binds the interceptor on handlers of any module.
  exports: [IdempotencyStore, IdempotencyCleanup, IdempotencyRecorder, IdempotencyInterceptor],
})
export class IdempotencyModule {}
