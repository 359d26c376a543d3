import { Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { Authenticator, AuthOutcome } from '../auth/authenticator';
import { AppException } from '../problem/app-exception';
import { RateLimitGuard } from './rate-limit.guard';
import { rateLimitRecord } from './rate-limit-window';

const USER_ID = '4f6c2a5e-8d1b-4c3a-9e7f-1a2b3c4d5e6f';

class ProbeController {
  handle(): void {}
}

interface FakeReply {
  headers: jest.Mock;
}

function context(url: string, ip = '203.0.113.9'): { host: ExecutionContextHost; reply: FakeReply } {
  const request = { url, ip, routeOptions: { url }, headers: {} };
  const reply: FakeReply = { headers: jest.fn() };
  const host = new ExecutionContextHost([request, reply], ProbeController, ProbeController.prototype.handle);
  return { host, reply };
}

async function guardWith(
  increment: ThrottlerStorage['increment'],
  outcome: () => Promise<AuthOutcome>,
): Promise<RateLimitGuard> {
  const authenticator = { authenticate: jest.fn(outcome) } as unknown as Authenticator;
  const guard = new RateLimitGuard(
    { throttlers: [{ name: 'default', limit: 5, ttl: 60_000 }], setHeaders: false },
    { increment },
    new Reflector(),
    authenticator,
  );
  await guard.onModuleInit();
  return guard;
}

const anonymous = () => Promise.resolve<AuthOutcome>({ failure: 'missing' });
const hits = (count: number) => jest.fn().mockResolvedValue(rateLimitRecord(count, 5, 10_250, 59_750));

describe('RateLimitGuard', () => {
  afterEach(() => jest.restoreAllMocks());

  it('keys a request by the token subject, else by address, one quota for all routes', async () => {
    const increment = hits(1);
    const byUser = await guardWith(increment, () =>
      Promise.resolve({ caller: { userId: USER_ID, roles: ['CUSTOMER'] } }),
    );
    await byUser.canActivate(context('/api/v1/orders').host);
    await byUser.canActivate(context('/api/v1/products').host);
    expect(increment.mock.calls.map((call) => call[0])).toEqual([
      `default:user:${USER_ID}`,
      `default:user:${USER_ID}`,
    ]);

    const byAddress = await guardWith(increment, anonymous);
    await byAddress.canActivate(context('/api/v1/orders', '203.0.113.9').host);
    // IPv6 clients are counted per /64: one host may hold the whole prefix.
    await byAddress.canActivate(context('/api/v1/orders', '2001:db8:1:2:aaaa::1').host);
    expect(increment.mock.calls.slice(2).map((call) => call[0])).toEqual([
      'default:ip:203.0.113.9',
      'default:ip:2001:db8:1:2::/64',
    ]);
  });

  it('counts by address when the token cannot be checked (identity provider down)', async () => {
    const increment = hits(1);
    const guard = await guardWith(increment, () => Promise.reject(new AppException('SERVICE_UNAVAILABLE')));
    await expect(guard.canActivate(context('/api/v1/orders').host)).resolves.toBe(true);
    expect(increment).toHaveBeenCalledWith('default:ip:203.0.113.9', 60_000, 5, 60_000, 'default');
  });

  it('writes the RateLimit-* headers on the reply and none of the library’s', async () => {
    const guard = await guardWith(hits(2), anonymous);
    const { host, reply } = context('/api/v1/orders');
    await expect(guard.canActivate(host)).resolves.toBe(true);
    expect(reply.headers).toHaveBeenCalledTimes(1);
    expect(reply.headers).toHaveBeenCalledWith({
      'RateLimit-Limit': '5',
      'RateLimit-Remaining': '3',
      'RateLimit-Reset': '70',
    });
  });

  it('throws 429 RATE_LIMIT_EXCEEDED with Retry-After and the headers above the limit', async () => {
    const guard = await guardWith(hits(6), anonymous);
    const error = await guard.canActivate(context('/api/v1/orders').host).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppException);
    expect(error).toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
      status: 429,
      options: {
        args: { retryAfter: 60 },
        headers: {
          'RateLimit-Limit': '5',
          'RateLimit-Remaining': '0',
          'RateLimit-Reset': '70',
          'Retry-After': '60',
        },
      },
    });
  });

  it('leaves routes outside /api alone', async () => {
    const increment = hits(1);
    const guard = await guardWith(increment, anonymous);
    for (const url of ['/health', '/ready', '/metrics', '/apix']) {
      await expect(guard.canActivate(context(url).host)).resolves.toBe(true);
    }
    expect(increment).not.toHaveBeenCalled();
  });

  it('lets requests through without headers while the store fails, warning once a minute', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const now = jest.spyOn(Date, 'now').mockReturnValue(1_000_000);
    const guard = await guardWith(jest.fn().mockRejectedValue(new Error('Connection is closed.')), anonymous);

    const first = context('/api/v1/orders');
    await expect(guard.canActivate(first.host)).resolves.toBe(true);
    await expect(guard.canActivate(context('/api/v1/orders').host)).resolves.toBe(true);
    expect(first.reply.headers).not.toHaveBeenCalled();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toContain('Connection is closed.');

    now.mockReturnValue(1_000_000 + 60_000);
    await guard.canActivate(context('/api/v1/orders').host);
    expect(warn).toHaveBeenCalledTimes(2);
  });
});
