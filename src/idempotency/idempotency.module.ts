import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { IdempotencyCleanup } from './idempotency.cleanup';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyRecorder } from './idempotency.recorder';
import { IdempotencyStore } from './idempotency.store';

/**
 * Idempotency-Key handling for POST and PATCH handlers marked `@Idempotent()` (PostgreSQL store, table
 * idempotency_keys): claim in the interceptor, record in an onSend hook, purge of expired keys.
 */
@Module({
  providers: [
    IdempotencyStore,
    IdempotencyRecorder,
    IdempotencyCleanup,
    { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
  ],
  exports: [IdempotencyStore, IdempotencyCleanup],
})
export class IdempotencyModule {}
