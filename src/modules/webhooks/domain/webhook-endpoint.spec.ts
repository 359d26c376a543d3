import { canRetryManually } from './webhook-delivery';
import { secretContext, secretsInForce } from './webhook-endpoint';

describe('secretsInForce', () => {
  const now = new Date('2026-11-26T12:00:00Z');

  it('is the current secret alone without a previous one', () => {
    expect(secretsInForce('new', undefined, now)).toEqual(['new']);
  });

  it('adds the previous secret until it expires, not at or after its expiry', () => {
    const later = new Date(now.getTime() + 1000);
    expect(secretsInForce('new', { secret: 'old', expiresAt: later }, now)).toEqual(['new', 'old']);
    expect(secretsInForce('new', { secret: 'old', expiresAt: now }, now)).toEqual(['new']);
  });

  it('seals each endpoint’s secrets for that endpoint only', () => {
    expect(secretContext('a')).not.toBe(secretContext('b'));
  });
});

describe('canRetryManually', () => {
  it.each([
    ['SUCCEEDED', true, true],
    ['FAILED', true, true],
    ['PENDING', true, false],
    ['FAILED', false, false],
  ] as const)('%s with the endpoint enabled=%s: %s', (status, enabled, allowed) => {
    expect(canRetryManually(status, enabled)).toBe(allowed);
  });
});
