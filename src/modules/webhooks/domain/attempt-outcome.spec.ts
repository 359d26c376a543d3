import { outcomeOfAnswer, parseRetryAfter } from './attempt-outcome';

const NOW = Date.parse('2026-03-01T12:00:00Z');

describe('outcomeOfAnswer', () => {
  it.each([200, 201, 202, 204, 299])('%i succeeds', (status) => {
    expect(outcomeOfAnswer(status, undefined, NOW)).toEqual({ result: 'SUCCEEDED', status });
  });

  it.each([100, 199, 300, 301, 302, 304, 307, 308, 400, 401, 404, 410, 500, 502, 504])(
    '%i fails with its status',
    (status) => {
      expect(outcomeOfAnswer(status, '60', NOW)).toEqual({ result: 'HTTP_STATUS', status });
    },
  );

  it.each([429, 503])('%i keeps its Retry-After', (status) => {
    expect(outcomeOfAnswer(status, '120', NOW)).toEqual({
      result: 'HTTP_STATUS',
      status,
      retryAfterSeconds: 120,
    });
    expect(outcomeOfAnswer(status, undefined, NOW)).toEqual({ result: 'HTTP_STATUS', status });
    expect(outcomeOfAnswer(status, 'soon', NOW)).toEqual({ result: 'HTTP_STATUS', status });
  });
});

describe('parseRetryAfter', () => {
  it.each([
    ['0', 0],
    ['120', 120],
    [' 30 ', 30],
    ['9999999999', 9_999_999_999],
    ['Sun, 01 Mar 2026 12:02:00 GMT', 120], // IMF-fixdate
    ['Sunday, 01-Mar-26 12:00:30 GMT', 30], // RFC 850
    ['Sun Mar  1 12:01:00 2026', 60], // asctime, which is UTC
    ['Sun, 01 Mar 2026 12:00:00 GMT', 0],
    ['Sun, 01 Mar 2026 11:00:00 GMT', 0], // in the past
  ])('%j → %i s', (value, seconds) => {
    expect(parseRetryAfter(value, NOW)).toBe(seconds);
  });

  it('rounds a date up to whole seconds', () => {
    expect(parseRetryAfter('Sun, 01 Mar 2026 12:00:10 GMT', NOW - 500)).toBe(11);
  });

  it.each([
    undefined,
    '',
    '-5',
    '1.5',
    '12345678901',
    '10 s',
    'tomorrow',
    '2026-03-01T12:02:00Z',
    'Sun, 01 Mar 2026 12:02:00',
  ])('ignores %j', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });
});
