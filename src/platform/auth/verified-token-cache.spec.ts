import { Caller } from './caller';
import { VerifiedTokenCache } from './verified-token-cache';

const caller = (userId: string): Caller => ({ userId, roles: ['CUSTOMER'] });

describe('VerifiedTokenCache', () => {
  let now = 1_000_000;
  const clock = () => now;

  it('answers a token verified before until its expiry, then forgets it', () => {
    const cache = new VerifiedTokenCache(10, clock);
    cache.set('token-a', caller('a'), now + 1000);
    expect(cache.get('token-a')).toEqual(caller('a'));
    now += 999;
    expect(cache.get('token-a')).toEqual(caller('a'));
    now += 1;
    expect(cache.get('token-a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('knows only the exact token string it was given', () => {
    const cache = new VerifiedTokenCache(10, clock);
    cache.set('token-a', caller('a'), now + 1000);
    expect(cache.get('token-a ')).toBeUndefined();
    expect(cache.get('token-b')).toBeUndefined();
  });

  it('drops the least recently used token when full', () => {
    const cache = new VerifiedTokenCache(2, clock);
    cache.set('a', caller('a'), now + 1000);
    cache.set('b', caller('b'), now + 1000);
    cache.get('a'); // a is now more recent than b
    cache.set('c', caller('c'), now + 1000);
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toEqual(caller('a'));
    expect(cache.get('c')).toEqual(caller('c'));
  });

  it('hands out a frozen caller, so one request cannot change what the next one sees', () => {
    const cache = new VerifiedTokenCache(10, clock);
    cache.set('a', caller('a'), now + 1000);
    const cached = cache.get('a') as Caller;
    expect(Object.isFrozen(cached)).toBe(true);
    expect(Object.isFrozen(cached.roles)).toBe(true);
  });
});
