import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import IORedis from 'ioredis';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';

/** The shared Redis client, or null when REDIS_URL is unset (single-process local runs). */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');
export type RedisClient = IORedis | null;

@Global()
@Module({
  providers: [
    {
      provide: REDIS_CLIENT,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): RedisClient => {
        if (!config.redis.url) return null;
        const client = new IORedis(config.redis.url, {
          // Fail fast while Redis is away (readiness turns 503) and reconnect by itself when it returns.
          maxRetriesPerRequest: 1,
          enableOfflineQueue: false,
          connectTimeout: 2_000,
          // A half-open connection must fail fast too (rate limits fail open, readiness reports it).
          commandTimeout: 1_000,
          retryStrategy: (times) => Math.min(times * 200, 2_000),
        });
        client.on('error', () => undefined);
        return client;
      },
    },
  ],
  exports: [REDIS_CLIENT],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: RedisClient) {}

  onApplicationShutdown(): void {
    this.redis?.disconnect();
  }
}
