import { Module } from '@nestjs/common';

/** Idempotency-Key handling for POST and PATCH (PostgreSQL store). */
@Module({})
export class IdempotencyModule {}
