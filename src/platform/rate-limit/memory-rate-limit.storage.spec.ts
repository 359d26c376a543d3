import { MemoryRateLimitStorage } from './memory-rate-limit.storage';

const WINDOW_MS = 60_000;
/** 2025-01-01T00:00:00.250Z: a quarter second past a whole Unix second. */
const START = Date.UTC(2025, 0, 1, 0, 0, 0, 250);

describe('MemoryRateLimitStorage', () => {
  let now: number;
  let storage: MemoryRateLimitStorage;
  beforeEach(() => {
    now = START;
    storage = new MemoryRateLimitStorage(() => now);
  });

  it('counts hits of one key in a fixed window and blocks above the limit', async () => {
    const records = [];
    for (let i = 0; i < 4; i += 1) {
      records.push(await storage.increment('client', WINDOW_MS, 3));
      now += 1_000;
    }
    expect(records.map((r) => r.totalHits)).toEqual([1, 2, 3, 4]);
    expect(records.map((r) => r.isBlocked)).toEqual([false, false, false, true]);
  });

  it('ends the window on the last whole second within the window length', async () => {
    const first = await storage.increment('client', WINDOW_MS, 3);
    // Opened at .250 of a second: it ends 59.75 s later, on a whole second.
    expect(first.resetAt).toBe((START - 250 + WINDOW_MS) / 1000);
    expect(first.timeToExpire).toBe(60);

    now += 30_000;
    const later = await storage.increment('client', WINDOW_MS, 3);
    expect(later.resetAt).toBe(first.resetAt);
    expect(later.timeToExpire).toBe(30);
    expect(later.timeToBlockExpire).toBe(30);
  });

  it('starts a new window once the old one has ended', async () => {
    const first = await storage.increment('client', WINDOW_MS, 1);
    expect((await storage.increment('client', WINDOW_MS, 1)).isBlocked).toBe(true);

    now = first.resetAt * 1000;
    const next = await storage.increment('client', WINDOW_MS, 1);
    expect(next).toMatchObject({ totalHits: 1, isBlocked: false });
    expect(next.resetAt).toBe(first.resetAt + WINDOW_MS / 1000);
  });

  it('keeps keys apart', async () => {
    await storage.increment('a', WINDOW_MS, 5);
    await storage.increment('a', WINDOW_MS, 5);
    expect((await storage.increment('b', WINDOW_MS, 5)).totalHits).toBe(1);
  });

  it('asks for a wait of one second, not zero, in the last moments of a window', async () => {
    const first = await storage.increment('client', WINDOW_MS, 1);
    now = first.resetAt * 1000 - 10;
    const last = await storage.increment('client', WINDOW_MS, 1);
    expect(last).toMatchObject({ isBlocked: true, timeToBlockExpire: 1, resetAt: first.resetAt });
  });

  it('sweeps windows that have ended, so idle clients do not accumulate', async () => {
    for (let i = 0; i < 50; i += 1) await storage.increment(`client-${i}`, WINDOW_MS, 5);
    expect(storage.size).toBe(50);

    now += WINDOW_MS + 1_000;
    await storage.increment('newcomer', WINDOW_MS, 5);
    expect(storage.size).toBe(1);
  });
});
