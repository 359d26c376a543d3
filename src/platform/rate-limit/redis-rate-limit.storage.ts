import { createHash } from 'node:crypto';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { RedisConnection } from '../redis/redis-connection';
import { RateLimitRecord, rateLimitRecord, windowEndMs } from './rate-limit-window';

/**
 * Counts one request per key in its client's window, atomically, so replicas sharing the Redis share the
 * counts. The first hit of a window (or a key that somehow lost its expiry) sets the expiry, in the same
 * script as the increment: a counter can never be left without one. Takes any number of keys (a key may
 * repeat: each occurrence counts once, in order) with the window length of each in ARGV; returns the count
 * and the milliseconds until the window ends of each, flattened.
 */
export const COUNT_HIT_SCRIPT = `
local out = {}
for i, key in ipairs(KEYS) do
  local hits = redis.call('INCR', key)
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then
    ttl = tonumber(ARGV[i])
    redis.call('PEXPIRE', key, ttl)
  end
  out[2 * i - 1] = hits
  out[2 * i] = ttl
end
return out
`;

const COUNT_HIT_SHA = createHash('sha1').update(COUNT_HIT_SCRIPT).digest('hex');

/** At most this many counts in one script call, so one call never holds Redis for long. */
export const MAX_HITS_PER_CALL = 128;

interface PendingHit {
  key: string;
  windowMs: number;
  resolve: (counted: [hits: number, msToReset: number]) => void;
  reject: (error: unknown) => void;
}

/**
 * Fixed-window counters in Redis under `<REDIS_KEY_PREFIX>:rl:`, shared by every replica.
 *
 * The counts asked for during one turn of the event loop go to Redis together, as one script call, sent
 * when the turn's I/O callbacks have run (`setImmediate`): under load, the requests that arrived together
 * cost one write and one read on the Redis socket instead of one each, and a lone request waits for
 * nothing. Each request still gets its own exact count. On a Redis Cluster a script may only use keys of one
 * slot, and the counters of different clients are in different slots (that is how they spread over the
 * masters): each count is its own script call there, and the client's auto-pipelining (RedisModule) sends the
 * calls of one turn to each master in one write.
 */
export class RedisRateLimitStorage implements ThrottlerStorage {
  private pending: PendingHit[] = [];

  constructor(
    private readonly redis: RedisConnection,
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

  private countHit(key: string, windowMs: number): Promise<[number, number]> {
    return new Promise((resolve, reject) => {
      if (this.pending.push({ key, windowMs, resolve, reject }) === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const pending = this.pending;
    this.pending = [];
    const perCall = this.redis.isCluster ? 1 : MAX_HITS_PER_CALL;
    for (let start = 0; start < pending.length; start += perCall) {
      void this.send(pending.slice(start, start + perCall));
    }
  }

  private async send(hits: PendingHit[]): Promise<void> {
    try {
      const counts = await this.run(
        hits.map((h) => h.key),
        hits.map((h) => h.windowMs),
      );
      hits.forEach((hit, i) => hit.resolve([counts[2 * i], counts[2 * i + 1]]));
    } catch (error: unknown) {
      for (const hit of hits) hit.reject(error);
    }
  }

  private async run(keys: string[], windows: number[]): Promise<number[]> {
    let reply: unknown;
    try {
      reply = await this.redis.evalsha(COUNT_HIT_SHA, keys.length, ...keys, ...windows);
    } catch (error: unknown) {
      // First use on this server (or after SCRIPT FLUSH): EVAL sends the script and caches it.
      if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw error;
      reply = await this.redis.eval(COUNT_HIT_SCRIPT, keys.length, ...keys, ...windows);
    }
    if (
      !Array.isArray(reply) ||
      reply.length !== 2 * keys.length ||
      !reply.every((value): value is number => typeof value === 'number')
    ) {
      throw new Error(`Unexpected reply of the rate-limit script: ${JSON.stringify(reply)}`);
    }
    return reply;
  }
}
