import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule, type ThrottlerModuleOptions } from '@nestjs/throttler';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { REDIS_CLIENT, type RedisClient } from '../redis/redis.module';
import { MemoryRateLimitStorage } from './memory-rate-limit.storage';
import { RateLimitGuard } from './rate-limit.guard';
import { RedisRateLimitStorage } from './redis-rate-limit.storage';

/**
 * Per-client rate limiting on /api with the RateLimit-* headers: RATE_LIMIT_LIMIT requests per
 * RATE_LIMIT_WINDOW_SECONDS, counted in Redis (shared by all replicas) or in process memory without it.
 * Imported before AuthModule so its global guard runs first.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG, REDIS_CLIENT],
      useFactory: (config: AppConfig, redis: RedisClient): ThrottlerModuleOptions => ({
        throttlers: [
          { name: 'default', limit: config.rateLimit.limit, ttl: config.rateLimit.windowSeconds * 1000 },
        ],
        // The guard writes the RateLimit-* headers itself; the library's are X-RateLimit-*.
        setHeaders: false,
        storage: redis
          ? new RedisRateLimitStorage(redis, `${config.redis.keyPrefix}:rl:`)
          : new MemoryRateLimitStorage(),
      }),
    }),
  ],
  providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
})
export class RateLimitModule {}
