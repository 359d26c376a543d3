import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { connectRedis, RedisConnection } from './redis-connection';

/** The shared Redis client, or null when no Redis is configured (single-process local runs). */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');
export type RedisClient = RedisConnection | null;

@Global()
@Module({
  providers: [
    {
      provide: REDIS_CLIENT,
      inject: [APP_CONFIG],
      useFactory: ({ redis }: AppConfig): RedisClient => {
        if (!redis.server) return null;
        return connectRedis(redis.server, {
          // Fail fast while Redis is away, or a master of a cluster is failing over (rate limits fail open,
          // readiness reports it), and reconnect by itself when it returns.
          maxRetriesPerRequest: 1,
          enableOfflineQueue: false,
          connectTimeout: 2_000,
          // A half-open connection must fail fast too.
          commandTimeout: 1_000,
          retryStrategy: (times) => Math.min(times * 200, 2_000),
          // On a cluster the rate-limit counts go one key a call (keys of other slots cannot share a
          // script): the calls of one turn of the event loop go to each node in one write.
          enableAutoPipelining: 'clusterNodes' in redis.server,
        });
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
