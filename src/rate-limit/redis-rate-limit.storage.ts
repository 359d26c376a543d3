import { createHash } from 'node:crypto';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type IORedis from 'ioredis';
import { RateLimitRecord, rateLimitRecord, windowEndMs } from './rate-limit-window';

/**
 * Counts one request in the client's window, atomically, so replicas sharing the Redis share the count.
 * The first hit of a window (or a key that somehow lost its expiry) sets the expiry, in the same script
 * as the increment: a counter can never be left without one. Returns the count and the milliseconds
 * until the window ends.
 */
export const COUNT_HIT_SCRIPT = `
local hits = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  ttl = tonumber(ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ttl)
end
return { hits, ttl }
`;

const COUNT_HIT_SHA = createHash('sha1').update(COUNT_HIT_SCRIPT).digest('hex');

/** Fixed-window counters in Redis under `<REDIS_KEY_PREFIX>:rl:`, shared by every replica. */
export class RedisRateLimitStorage implements ThrottlerStorage {
  constructor(
    private readonly redis: IORedis,
    private readonly keyPrefix: string,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * `ttl` is the window length in milliseconds (as @nestjs/throttler passes it). Rejects when Redis
   * does; the guard decides what that means for the request.
   */
  async increment(key: string, ttl: number, limit: number): Promise<RateLimitRecord> {
    const now = this.now();
    const [hits, msToReset] = await this.countHit(this.keyPrefix + key, windowEndMs(now, ttl) - now);
    return rateLimitRecord(hits, limit, now, msToReset);
  }

  private async countHit(key: string, windowMs: number): Promise<[number, number]> {
    let reply: unknown;
    try {
      reply = await this.redis.evalsha(COUNT_HIT_SHA, 1, key, windowMs);
    } catch (error: unknown) {
      // First use on this server (or after SCRIPT FLUSH): EVAL sends the script and caches it.
      if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw error;
      reply = await this.redis.eval(COUNT_HIT_SCRIPT, 1, key, windowMs);
    }
    if (
      !Array.isArray(reply) ||
      reply.length !== 2 ||
      !reply.every((value): value is number => typeof value === 'number')
    ) {
      throw new Error(`Unexpected reply of the rate-limit script: ${JSON.stringify(reply)}`);
    }
    return [reply[0], reply[1]];
  }
}
