import { retryAfterMs, retryDelay } from '../../client/src/attempts';

const RETRY = { attempts: 3, baseDelayMs: 200, maxDelayMs: 10_000 };

describe('retryAfterMs', () => {
  it('reads delay-seconds and HTTP-dates, and nothing else', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(' 0 ')).toBe(0);
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    expect(retryAfterMs(inTenSeconds)).toBeGreaterThan(8000);
    expect(retryAfterMs(inTenSeconds)).toBeLessThanOrEqual(10_000);
    expect(retryAfterMs('Thu, 01 Jan 2015 00:00:00 GMT')).toBe(0); // past: at once
    for (const nothing of [null, '', 'soon', '-1']) expect(retryAfterMs(nothing)).toBeUndefined();
  });
});

describe('retryDelay', () => {
  it('doubles from baseDelayMs, with jitter between half and all of it, up to maxDelayMs', () => {
    for (const [attempt, full] of [
      [1, 200],
      [2, 400],
      [3, 800],
      [10, 10_000],
    ]) {
      for (let i = 0; i < 50; i++) {
        const delay = retryDelay(new Error('network'), attempt, RETRY) as number;
        expect(delay).toBeGreaterThanOrEqual(full / 2);
        expect(delay).toBeLessThanOrEqual(full);
      }
    }
  });

  it('waits at least what Retry-After asks', () => {
    const answer = new Response(null, { status: 429, headers: { 'Retry-After': '5' } });
    expect(retryDelay(answer, 1, RETRY)).toBe(5000);
  });

  it('gives up when Retry-After asks for more than maxDelayMs', () => {
    const answer = new Response(null, { status: 503, headers: { 'Retry-After': '11' } });
    expect(retryDelay(answer, 1, RETRY)).toBeUndefined();
  });
});
