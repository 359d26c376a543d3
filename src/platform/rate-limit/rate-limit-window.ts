import type { ThrottlerStorage } from '@nestjs/throttler';

/** The library's storage answer (its interface is not exported from the package root). */
export type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * What a rate-limit storage answers for one counted request. The library's own fields keep their meaning
 * in its built-in storage (times in whole seconds); `resetAt` adds the instant the
 * `RateLimit-Reset` header needs, so no unit is guessed at (the library mixes seconds and milliseconds).
 */
export interface RateLimitRecord extends ThrottlerStorageRecord {
  /** Unix time in seconds at which the client's window ends and its count starts again. */
  resetAt: number;
}

export function isRateLimitRecord(record: ThrottlerStorageRecord): record is RateLimitRecord {
  return typeof (record as Partial<RateLimitRecord>).resetAt === 'number';
}

/**
 * End of a fixed window opened at `nowMs`, in Unix milliseconds. It is cut back to the last whole second
 * so that `RateLimit-Reset` (whole seconds) names the exact instant the count starts again; a window thus
 * lasts between `windowMs - 1000` (exclusive) and `windowMs`, and `Retry-After` never exceeds the window.
 */
export function windowEndMs(nowMs: number, windowMs: number): number {
  const end = Math.floor((nowMs + windowMs) / 1000) * 1000;
  // Only a sub-second window (a route-level override) could end before it starts; keep its full length.
  return end > nowMs ? end : nowMs + windowMs;
}

/**
 * Builds the record for the `totalHits`-th request of a window that ends `msToReset` after `nowMs`.
 * A fixed window blocks until it ends: the library's `blockDuration` does not apply.
 */
export function rateLimitRecord(
  totalHits: number,
  limit: number,
  nowMs: number,
  msToReset: number,
): RateLimitRecord {
  const secondsToReset = Math.max(1, Math.ceil(msToReset / 1000));
  return {
    totalHits,
    timeToExpire: secondsToReset,
    isBlocked: totalHits > limit,
    timeToBlockExpire: secondsToReset,
    // Windows end on whole seconds; rounding absorbs the few milliseconds of a Redis round trip and of
    // clock skew between replicas, so every replica names the same second.
    resetAt: Math.round((nowMs + msToReset) / 1000),
  };
}
