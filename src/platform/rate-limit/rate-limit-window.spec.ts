import { isRateLimitRecord, rateLimitRecord, windowEndMs } from './rate-limit-window';

describe('windowEndMs', () => {
  it('ends a window on a whole second, never later than its length', () => {
    expect(windowEndMs(10_250, 60_000)).toBe(70_000);
    expect(windowEndMs(10_000, 60_000)).toBe(70_000);
    expect(windowEndMs(10_999, 1_000)).toBe(11_000);
  });

  it('keeps a sub-second window (a route override) at its full length', () => {
    expect(windowEndMs(10_250, 500)).toBe(10_750);
  });
});

describe('rateLimitRecord', () => {
  it('blocks only above the limit, with the seconds and the instant of the reset', () => {
    expect(rateLimitRecord(5, 5, 10_250, 59_750)).toEqual({
      totalHits: 5,
      isBlocked: false,
      timeToExpire: 60,
      timeToBlockExpire: 60,
      resetAt: 70,
    });
    expect(rateLimitRecord(6, 5, 10_250, 59_750).isBlocked).toBe(true);
  });

  it('asks for at least one second even when the store reports the window as just ending', () => {
    expect(rateLimitRecord(6, 5, 69_999, 0)).toMatchObject({ timeToExpire: 1, timeToBlockExpire: 1 });
  });

  it('names the same reset second despite a few milliseconds of round trip or clock skew', () => {
    expect(rateLimitRecord(1, 5, 10_260, 59_745).resetAt).toBe(70);
    expect(rateLimitRecord(1, 5, 10_240, 59_745).resetAt).toBe(70);
  });

  it('is told apart from the library’s own record', () => {
    expect(isRateLimitRecord(rateLimitRecord(1, 5, 0, 1_000))).toBe(true);
    expect(isRateLimitRecord({ totalHits: 1, timeToExpire: 1, isBlocked: false, timeToBlockExpire: 0 })).toBe(
      false,
    );
  });
});
