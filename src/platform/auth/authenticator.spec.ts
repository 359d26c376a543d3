import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppException } from '../problem/app-exception';
import { Authenticator } from './authenticator';
import { signAccessToken } from './token-signer';
import { TokenKeysUnavailableError, TokenVerifier } from './token-verifier';

const SECRET = 'unit-test-secret-that-is-long-enough-0123456789';

function requestWith(authorization?: string): FastifyRequest {
  return { headers: authorization === undefined ? {} : { authorization } } as FastifyRequest;
}

describe('Authenticator', () => {
  const verifier = TokenVerifier.fromConfig({ jwtSecret: SECRET, devSecret: false });

  it('verifies a request once however often it is asked (rate limiter, then guard)', async () => {
    const verify = jest.spyOn(verifier, 'verify');
    const authenticator = new Authenticator(verifier);
    const sub = randomUUID();
    const request = requestWith(`Bearer ${await signAccessToken(SECRET, { sub, roles: ['ADMIN'] })}`);

    const [first, second] = await Promise.all([
      authenticator.authenticate(request),
      authenticator.authenticate(request),
    ]);
    const third = await authenticator.authenticate(request);

    expect(first).toEqual({ caller: { userId: sub, roles: ['ADMIN'] } });
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(verify).toHaveBeenCalledTimes(1);
    await authenticator.authenticate(requestWith(request.headers.authorization));
    expect(verify).toHaveBeenCalledTimes(2); // another request is verified on its own
    verify.mockRestore();
  });

  it('tells missing credentials from an invalid or expired token', async () => {
    const authenticator = new Authenticator(verifier);
    const expired = await signAccessToken(SECRET, {
      sub: randomUUID(),
      roles: ['CUSTOMER'],
      ttlSeconds: -60,
    });
    await expect(authenticator.authenticate(requestWith())).resolves.toEqual({ failure: 'missing' });
    await expect(authenticator.authenticate(requestWith('Basic dXNlcjpwYXNz'))).resolves.toEqual({
      failure: 'missing',
    });
    await expect(authenticator.authenticate(requestWith('Bearer nope'))).resolves.toEqual({
      failure: 'invalid',
    });
    await expect(authenticator.authenticate(requestWith(`Bearer ${expired}`))).resolves.toEqual({
      failure: 'expired',
    });
  });

  it('turns an unreachable key set into 503 SERVICE_UNAVAILABLE with Retry-After, and logs why', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const unavailable = {
      verify: () => Promise.reject(new TokenKeysUnavailableError(new Error('ECONNREFUSED'))),
    };
    const authenticator = new Authenticator(unavailable as unknown as TokenVerifier);
    const failure = await authenticator
      .authenticate(requestWith('Bearer abc.def.ghi'))
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(AppException);
    expect(failure).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      status: 503,
      options: { detailKey: 'errors.SERVICE_UNAVAILABLE_TOKEN_KEYS', headers: { 'retry-after': '5' } },
    });
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('ECONNREFUSED'));
    warn.mockRestore();
  });
});
