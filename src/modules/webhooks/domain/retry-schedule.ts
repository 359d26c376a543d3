import { AttemptOutcome, DeliveryError, GONE_STATUS } from './attempt-outcome';

/**
 * When a delivery is tried again. The schedule lists the waits before attempts 2, 3, … in milliseconds, so a
 * delivery has one attempt more than the schedule has waits; after the last one it is `FAILED`. Each wait is
 * lengthened by a random jitter of up to `RETRY_JITTER` of itself, so deliveries that failed together (a
 * receiver's outage) do not all come back in the same instant. A 429 or 503 with `Retry-After` waits at
 * least that long (the jitter is added to the longer of the two).
 */
export const RETRY_JITTER = 0.1;

/** How many attempts a delivery gets with `schedule`. */
export function attemptLimit(schedule: readonly number[]): number {
  return schedule.length + 1;
}

/**
 * The wait before the next attempt after `attemptsMade` attempts (1 after the first), or undefined when that
 * was the last one. `random` gives a number in [0, 1), as `Math.random` does.
 */
export function retryDelayMs(
  schedule: readonly number[],
  attemptsMade: number,
  retryAfterSeconds: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) {
    throw new RangeError(`attemptsMade must be a positive integer (got ${attemptsMade})`);
  }
  const wait = schedule[attemptsMade - 1];
  if (wait === undefined) return undefined;
  const base = Math.max(wait, (retryAfterSeconds ?? 0) * 1000);
  return Math.round(base * (1 + RETRY_JITTER * random()));
}

/** What the delivery becomes after an attempt. */
export type DeliveryStep =
  | { readonly status: 'SUCCEEDED' }
  | { readonly status: 'PENDING'; readonly error: DeliveryError; readonly retryInMs: number }
  /** `endpointGone`: the receiver answered 410, the endpoint is to be disabled with `GONE`. */
  | { readonly status: 'FAILED'; readonly error: DeliveryError; readonly endpointGone: boolean };

/**
 * The step after the attempt number `attemptsMade` ended with `outcome`: succeeded, tried again after a wait,
 * or failed for good: after the last attempt, when the destination is refused (it will be refused again),
 * or when the receiver answered 410 Gone.
 */
export function stepAfterAttempt(
  outcome: AttemptOutcome,
  attemptsMade: number,
  schedule: readonly number[],
  random: () => number = Math.random,
): DeliveryStep {
  if (outcome.result === 'SUCCEEDED') return { status: 'SUCCEEDED' };
  const gone = outcome.result === 'HTTP_STATUS' && outcome.status === GONE_STATUS;
  if (gone || outcome.result === 'URL_NOT_ALLOWED') {
    return { status: 'FAILED', error: outcome.result, endpointGone: gone };
  }
  const retryAfter = outcome.result === 'HTTP_STATUS' ? outcome.retryAfterSeconds : undefined;
  const retryInMs = retryDelayMs(schedule, attemptsMade, retryAfter, random);
  return retryInMs === undefined
    ? { status: 'FAILED', error: outcome.result, endpointGone: false }
    : { status: 'PENDING', error: outcome.result, retryInMs };
}
