import { randomBytes } from 'node:crypto';
import IORedis from 'ioredis';
import { redisServer } from '../config/app-config';
import { connectRedis, deleteKeys, type RedisConnection } from '../redis/redis-connection';
import { COUNT_HIT_SCRIPT, MAX_HITS_PER_CALL, RedisRateLimitStorage } from './redis-rate-limit.storage';
import { until } from '../../../test/support/wait';

const WINDOW_MS = 60_000;
/** Runs against the real Redis (REDIS_URL, or a cluster: REDIS_CLUSTER_NODES), under a key prefix of its own. */
const server = redisServer(process.env);
const describeWithRedis = server ? describe : describe.skip;
// Skipped suites are listed only in verbose runs: say why this one did not run.
if (!server)
  process.stdout.write(
    'skipped: RedisRateLimitStorage on Redis: needs REDIS_URL or REDIS_CLUSTER_NODES (a Redis server)\n',
  );

describeWithRedis('RedisRateLimitStorage on Redis (REDIS_URL or REDIS_CLUSTER_NODES set)', () => {
  const prefix = `os-unit-${randomBytes(4).toString('hex')}:rl:`;
  let redis: RedisConnection;
  let storage: RedisRateLimitStorage;

  beforeAll(() => {
    // As RedisModule connects (auto-pipelining matters on a cluster only).
    redis = connectRedis(server!, { maxRetriesPerRequest: 1, enableAutoPipelining: true });
    storage = new RedisRateLimitStorage(redis, prefix);
  });
  // Every key under the spec's prefix goes with it, whichever test made it.
  afterAll(async () => {
    await deleteKeys(redis, `${prefix}*`);
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
    expect(third).toMatchObject({ totalHits: 3, isBlocked: true });
    // The same window: its end is read on each reply (the key's time to live from the reply's arrival), so a
    // slow reply may round to the next second, never to an earlier one.
    expect(third.resetAt).toBeGreaterThanOrEqual(first.resetAt);
    expect(third.resetAt).toBeLessThanOrEqual(Math.ceil((Date.now() + WINDOW_MS) / 1000));
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

  it('counts several keys of one turn in one call, each with its own window and count', async () => {
    const [a, b, a2] = await Promise.all([
      storage.increment('default:user:mixed-a', WINDOW_MS, 5),
      storage.increment('default:user:mixed-b', 1_000, 5),
      storage.increment('default:user:mixed-a', WINDOW_MS, 5),
    ]);
    expect([a.totalHits, b.totalHits, a2.totalHits]).toEqual([1, 1, 2]);
    expect(await redis.pttl(`${prefix}default:user:mixed-b`)).toBeLessThanOrEqual(1_000);
    expect(await redis.pttl(`${prefix}default:user:mixed-a`)).toBeGreaterThan(1_000);
  });

  it('gives a counter that lost its expiry a new one instead of blocking the client forever', async () => {
    await redis.set(`${prefix}default:ip:192.0.2.1`, '7');
    const record = await storage.increment('default:ip:192.0.2.1', WINDOW_MS, 10);
    expect(record.totalHits).toBe(8);
    expect(await redis.pttl(`${prefix}default:ip:192.0.2.1`)).toBeGreaterThan(0);
  });

  it('starts a new count once the window has ended', async () => {
    // A one-second window: its counter is gone once it ends.
    const first = await storage.increment('default:user:short', 1_000, 1);
    expect((await storage.increment('default:user:short', 1_000, 1)).isBlocked).toBe(true);
    expect(first.totalHits).toBe(1);
    await until('the window ended', async () => (await redis.exists(`${prefix}default:user:short`)) === 0);
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

  it('sends the counts asked for in one turn of the event loop as one script call, each its own count', async () => {
    const evalsha = jest
      .fn()
      .mockImplementation((_sha: string, n: number, ...args: Array<string | number>) =>
        Promise.resolve(args.slice(0, n).flatMap((_key, i) => [i + 1, 59_750])),
      );
    const storage = new RedisRateLimitStorage({ evalsha } as unknown as IORedis, 'p:rl:', () => 10_250);

    const records = await Promise.all([
      storage.increment('default:user:a', WINDOW_MS, 2),
      storage.increment('default:user:b', WINDOW_MS, 2),
      storage.increment('default:user:a', WINDOW_MS, 2),
    ]);
    expect(evalsha).toHaveBeenCalledTimes(1);
    expect(evalsha.mock.calls[0].slice(1)).toEqual([
      3,
      'p:rl:default:user:a',
      'p:rl:default:user:b',
      'p:rl:default:user:a',
      59_750,
      59_750,
      59_750,
    ]);
    expect(records.map((r) => [r.totalHits, r.isBlocked])).toEqual([
      [1, false],
      [2, false],
      [3, true],
    ]);

    // A later turn is a call of its own.
    await storage.increment('default:user:c', WINDOW_MS, 2);
    expect(evalsha).toHaveBeenCalledTimes(2);
  });

  it(`splits a turn of more than ${MAX_HITS_PER_CALL} counts into calls of at most that many`, async () => {
    const evalsha = jest
      .fn()
      .mockImplementation((_sha: string, n: number) =>
        Promise.resolve(Array.from({ length: 2 * n }, () => 1)),
      );
    const storage = new RedisRateLimitStorage({ evalsha } as unknown as IORedis, 'p:rl:');
    await Promise.all(
      Array.from({ length: MAX_HITS_PER_CALL + 1 }, (_, i) => storage.increment(`k${i}`, WINDOW_MS, 5)),
    );
    expect(evalsha.mock.calls.map((call) => call[1])).toEqual([MAX_HITS_PER_CALL, 1]);
  });

  it('on a Redis Cluster sends each count as a call of its own (keys of other slots cannot share one)', async () => {
    const evalsha = jest
      .fn()
      .mockImplementation((_sha: string, n: number) =>
        Promise.resolve(Array.from({ length: 2 * n }, () => 1)),
      );
    const cluster = { evalsha, isCluster: true } as unknown as IORedis;
    const storage = new RedisRateLimitStorage(cluster, 'p:rl:');
    await Promise.all(['a', 'b', 'a'].map((k) => storage.increment(`default:user:${k}`, WINDOW_MS, 5)));
    expect(evalsha.mock.calls.map((call) => call.slice(1, 3))).toEqual([
      [1, 'p:rl:default:user:a'],
      [1, 'p:rl:default:user:b'],
      [1, 'p:rl:default:user:a'],
    ]);
  });

  it('rejects a reply that is not [count, milliseconds]', async () => {
    const fake = { evalsha: jest.fn().mockResolvedValue('OK') } as unknown as IORedis;
    const storage = new RedisRateLimitStorage(fake, 'p:rl:');
    await expect(storage.increment('k', WINDOW_MS, 5)).rejects.toThrow(/Unexpected reply/);
  });
});
