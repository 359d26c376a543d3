import { AttemptOutcome } from './attempt-outcome';
import { attemptLimit, retryDelayMs, stepAfterAttempt } from './retry-schedule';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
/** The default schedule: 5s,30s,2m,10m,1h,6h,24h. */
const DEFAULT = [5 * S, 30 * S, 2 * M, 10 * M, H, 6 * H, 24 * H];
const noJitter = (): number => 0;
const fullJitter = (): number => 0.9999999999;

describe('retry schedule', () => {
  it('gives a delivery one attempt more than the schedule has waits: 8 with the default', () => {
    expect(attemptLimit(DEFAULT)).toBe(8);
    expect(attemptLimit([100])).toBe(2);
  });

  it.each([
    [1, 5 * S],
    [2, 30 * S],
    [3, 2 * M],
    [4, 10 * M],
    [5, H],
    [6, 6 * H],
    [7, 24 * H],
  ])(
    'waits the schedule before the attempt after attempt %i (%i ms), plus at most 10 %%',
    (attemptsMade, wait) => {
      expect(retryDelayMs(DEFAULT, attemptsMade, undefined, noJitter)).toBe(wait);
      expect(retryDelayMs(DEFAULT, attemptsMade, undefined, () => 0.5)).toBe(Math.round(wait * 1.05));
      expect(retryDelayMs(DEFAULT, attemptsMade, undefined, fullJitter)).toBe(Math.round(wait * 1.1));
    },
  );

  it('has no wait after the last attempt', () => {
    expect(retryDelayMs(DEFAULT, 8, undefined, noJitter)).toBeUndefined();
    expect(retryDelayMs(DEFAULT, 9, undefined, noJitter)).toBeUndefined();
  });

  it('spreads the waits of deliveries that failed together', () => {
    const waits = new Set(Array.from({ length: 50 }, () => retryDelayMs(DEFAULT, 2, undefined)));
    expect(waits.size).toBeGreaterThan(1);
    for (const wait of waits) {
      expect(wait).toBeGreaterThanOrEqual(30 * S);
      expect(wait).toBeLessThanOrEqual(33 * S);
    }
  });

  it('waits at least as long as Retry-After, jitter on top', () => {
    expect(retryDelayMs(DEFAULT, 1, 120, noJitter)).toBe(120 * S);
    expect(retryDelayMs(DEFAULT, 1, 120, fullJitter)).toBe(132 * S);
    expect(retryDelayMs(DEFAULT, 1, 2, noJitter)).toBe(5 * S); // a shorter Retry-After changes nothing
    expect(retryDelayMs(DEFAULT, 1, 0, noJitter)).toBe(5 * S);
  });

  it('counts attempts from 1', () => {
    expect(() => retryDelayMs(DEFAULT, 0, undefined)).toThrow(RangeError);
    expect(() => retryDelayMs(DEFAULT, 1.5, undefined)).toThrow(RangeError);
  });
});

describe('stepAfterAttempt', () => {
  const step = (outcome: AttemptOutcome, attemptsMade = 1) =>
    stepAfterAttempt(outcome, attemptsMade, DEFAULT, noJitter);

  it('ends a delivery that succeeded', () => {
    expect(step({ result: 'SUCCEEDED', status: 204 })).toEqual({ status: 'SUCCEEDED' });
  });

  it.each<AttemptOutcome>([
    { result: 'HTTP_STATUS', status: 500 },
    { result: 'HTTP_STATUS', status: 302 },
    { result: 'HTTP_STATUS', status: 404 },
    { result: 'TIMEOUT' },
    { result: 'CONNECTION_FAILED', detail: 'connect ECONNREFUSED 203.0.113.1:443' },
  ])('tries %j again after the scheduled wait', (outcome) => {
    expect(step(outcome, 2)).toEqual({ status: 'PENDING', error: outcome.result, retryInMs: 30 * S });
  });

  it('honours Retry-After', () => {
    expect(step({ result: 'HTTP_STATUS', status: 429, retryAfterSeconds: 3600 })).toEqual({
      status: 'PENDING',
      error: 'HTTP_STATUS',
      retryInMs: H,
    });
  });

  it('fails a delivery after its last attempt', () => {
    expect(step({ result: 'TIMEOUT' }, 8)).toEqual({
      status: 'FAILED',
      error: 'TIMEOUT',
      endpointGone: false,
    });
    expect(stepAfterAttempt({ result: 'TIMEOUT' }, 1, [], noJitter)).toEqual({
      status: 'FAILED',
      error: 'TIMEOUT',
      endpointGone: false,
    });
  });

  it('fails at once a refused destination (it would be refused again)', () => {
    expect(step({ result: 'URL_NOT_ALLOWED', detail: 'x is a loopback address' })).toEqual({
      status: 'FAILED',
      error: 'URL_NOT_ALLOWED',
      endpointGone: false,
    });
  });

  it('fails at once on 410 Gone and says the endpoint is gone', () => {
    expect(step({ result: 'HTTP_STATUS', status: 410 })).toEqual({
      status: 'FAILED',
      error: 'HTTP_STATUS',
      endpointGone: true,
    });
  });
});
