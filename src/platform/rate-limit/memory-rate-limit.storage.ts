import type { ThrottlerStorage } from '@nestjs/throttler';
import { RateLimitRecord, rateLimitRecord, windowEndMs } from './rate-limit-window';

interface Window {
  hits: number;
  endsAt: number;
}

/** How often, at most, expired windows are dropped; the sweep runs on a request, so no timer is needed. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * Fixed-window counters of one process, used when there is no Redis (REDIS_URL unset: a single-process
 * local run). Expired windows are swept on the way, so the map holds about one window per recent client.
 */
export class MemoryRateLimitStorage implements ThrottlerStorage {
  private readonly windows = new Map<string, Window>();
  private lastSweepAt: number;

  constructor(private readonly now: () => number = Date.now) {
    this.lastSweepAt = now();
  }

  /** `ttl` is the window length in milliseconds (as @nestjs/throttler passes it). */
  async increment(key: string, ttl: number, limit: number): Promise<RateLimitRecord> {
    const now = this.now();
    this.sweep(now);
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      window = { hits: 0, endsAt: windowEndMs(now, ttl) };
      this.windows.set(key, window);
    }
    window.hits += 1;
    return rateLimitRecord(window.hits, limit, now, window.endsAt - now);
  }

  /** Number of windows held; for tests of the sweep. */
  get size(): number {
    return this.windows.size;
  }

  private sweep(now: number): void {
    if (now - this.lastSweepAt < SWEEP_INTERVAL_MS) return;
    this.lastSweepAt = now;
    for (const [key, window] of this.windows) {
      if (window.endsAt <= now) this.windows.delete(key);
    }
  }
}
