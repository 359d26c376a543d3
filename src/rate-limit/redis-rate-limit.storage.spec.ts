import { randomBytes } from 'node:crypto';
import IORedis from 'ioredis';
import { COUNT_HIT_SCRIPT, RedisRateLimitStorage } from './redis-rate-limit.storage';

const WINDOW_MS = 60_000;
const TEST_KEYS = ['default:user:a', 'default:user:burst', 'default:ip:192.0.2.1', 'default:user:short'];

/** Runs against the real Redis when REDIS_URL is set, under a key prefix of its own. */
const describeWithRedis = process.env.REDIS_URL ? describe : describe.skip;

describeWithRedis('RedisRateLimitStorage on Redis (REDIS_URL set)', () => {
  const prefix = `os-unit-${randomBytes(4).toString('hex')}:rl:`;
  let redis: IORedis;
  let storage: RedisRateLimitStorage;

  beforeAll(() => {
    redis = new IORedis(process.env.REDIS_URL as string, { maxRetriesPerRequest: 1 });
    storage = new RedisRateLimitStorage(redis, prefix);
  });
  afterAll(async () => {
    await redis.del(...TEST_KEYS.map((key) => prefix + key));
    redis.disconnect();
  });

  it('counts under the prefix with an expiry ending on a whole second within the window', async () => {
    const before = Date.now();
    const first = await storage.increment('default:user:a', WINDOW_MS, 2);
    const after = Date.now();
    expect(first).toMatchObject({ totalHits: 1, isBlocked: false });
    expect(first.resetAt).toBeGreaterThanOrEqual(Math.floor((before + WINDOW_MS) / 1000));
    expect(first.resetAt).toBeLessThanOrEqual(Math.floor((after + WINDOW_MS) / 1000));

    const ttl = await redis.pttl(`${prefix}default:user:a`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(WINDOW_MS);

    await storage.increment('default:user:a', WINDOW_MS, 2);
    const third = await storage.increment('default:user:a', WINDOW_MS, 2);
    expect(third).toMatchObject({ totalHits: 3, isBlocked: true, resetAt: first.resetAt });
  });

  it('counts concurrent hits exactly once each (atomic increment)', async () => {
    const records = await Promise.all(
      Array.from({ length: 40 }, () => storage.increment('default:user:burst', WINDOW_MS, 10)),
    );
    expect(records.map((r) => r.totalHits).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 40 }, (_, i) => i + 1),
    );
    expect(records.filter((r) => !r.isBlocked)).toHaveLength(10);
    expect(new Set(records.map((r) => r.resetAt)).size).toBe(1);
  });

  it('gives a counter that lost its expiry a new one instead of blocking the client forever', async () => {
    await redis.set(`${prefix}default:ip:192.0.2.1`, '7');
    const record = await storage.increment('default:ip:192.0.2.1', WINDOW_MS, 10);
    expect(record.totalHits).toBe(8);
    expect(await redis.pttl(`${prefix}default:ip:192.0.2.1`)).toBeGreaterThan(0);
  });

  it('starts a new count once the window has ended', async () => {
    // A one-second window ends at the next whole second: at most a second to wait.
    const first = await storage.increment('default:user:short', 1_000, 1);
    expect((await storage.increment('default:user:short', 1_000, 1)).isBlocked).toBe(true);
    await new Promise((r) => setTimeout(r, Math.max(0, first.resetAt * 1000 - Date.now()) + 20));
    expect(await storage.increment('default:user:short', 1_000, 1)).toMatchObject({
      totalHits: 1,
      isBlocked: false,
    });
  });
});

describe('RedisRateLimitStorage without a live Redis', () => {
  it('sends the script with EVAL when the server does not have it cached (NOSCRIPT)', async () => {
    const evalsha = jest.fn().mockRejectedValue(new Error('NOSCRIPT No matching script.'));
    const evalScript = jest.fn().mockResolvedValue([1, 59_750]);
    const fake = { evalsha, eval: evalScript } as unknown as IORedis;
    const storage = new RedisRateLimitStorage(fake, 'p:rl:', () => 10_250);

    const record = await storage.increment('default:user:a', WINDOW_MS, 5);
    expect(record).toMatchObject({ totalHits: 1, resetAt: 70 });
    expect(evalScript).toHaveBeenCalledWith(COUNT_HIT_SCRIPT, 1, 'p:rl:default:user:a', 59_750);
  });

  it('rejects when Redis cannot be reached, leaving the decision to the guard', async () => {
    const unreachable = new IORedis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    unreachable.on('error', () => undefined);
    const storage = new RedisRateLimitStorage(unreachable, 'p:rl:');
    await expect(storage.increment('default:user:a', WINDOW_MS, 5)).rejects.toThrow();
    unreachable.disconnect();
  });

  it('rejects a reply that is not [count, milliseconds]', async () => {
    const fake = { evalsha: jest.fn().mockResolvedValue('OK') } as unknown as IORedis;
    const storage = new RedisRateLimitStorage(fake, 'p:rl:');
    await expect(storage.increment('k', WINDOW_MS, 5)).rejects.toThrow(/Unexpected reply/);
  });
});
