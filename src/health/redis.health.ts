import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { REDIS_CLIENT, type RedisClient } from '../redis/redis.module';

const PING_TIMEOUT_MS = 1_500;

@Injectable()
export class RedisHealthIndicator {
  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: RedisClient,
    private readonly indicators: HealthIndicatorService,
  ) {}

  async check(key: string): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check(key);
    if (!this.redis) return indicator.down({ message: 'REDIS_URL is not set' });
    try {
      await Promise.race([
        this.redis.ping(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS).unref()),
      ]);
      return indicator.up({ mode: 'external' });
    } catch (error) {
      return indicator.down({
        mode: 'external',
        message: error instanceof Error ? error.message : 'unreachable',
      });
    }
  }
}
