import { randomUUID } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, JWTPayload, KeyLike, SignJWT, UnsecuredJWT } from 'jose';
import type { AppConfig } from '../config/app-config';
import { signAccessToken } from './token-signer';
import { TokenKeysUnavailableError, TokenVerifier } from './token-verifier';

const SECRET = 'unit-test-secret-that-is-long-enough-0123456789';
const now = () => Math.floor(Date.now() / 1000);

function authConfig(overrides: Partial<AppConfig['auth']> = {}): AppConfig['auth'] {
  return { jwtSecret: SECRET, devSecret: false, ...overrides };
}

function hs256(claims: JWTPayload, secret = SECRET): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(secret));
}

describe('TokenVerifier with the shared secret (HS256)', () => {
  const verifier = TokenVerifier.fromConfig(authConfig());
  const sub = randomUUID();

  it('accepts a token of the signer and yields the caller', async () => {
    const token = await signAccessToken(SECRET, { sub, roles: ['ADMIN', 'CUSTOMER'] });
    await expect(verifier.verify(token)).resolves.toEqual({
      caller: { userId: sub, roles: ['CUSTOMER', 'ADMIN'] },
    });
  });

  it('serves the user id in lower case', async () => {
    const token = await hs256({ sub: sub.toUpperCase(), roles: ['CUSTOMER'], exp: now() + 60 });
    await expect(verifier.verify(token)).resolves.toEqual({ caller: { userId: sub, roles: ['CUSTOMER'] } });
  });

  it('reports an expired token as expired', async () => {
    const token = await signAccessToken(SECRET, { sub, roles: ['CUSTOMER'], ttlSeconds: -3600 });
    await expect(verifier.verify(token)).resolves.toEqual({ failure: 'expired' });
  });

  it.each<[string, () => Promise<string>]>([
    ['a wrong signature', () => signAccessToken(`${SECRET}-other`, { sub, roles: ['CUSTOMER'] })],
    ['no exp', () => hs256({ sub, roles: ['CUSTOMER'] })],
    ['a non-numeric exp', () => hs256({ sub, roles: ['CUSTOMER'], exp: 'tomorrow' as unknown as number })],
    ['a non-uuid sub', () => hs256({ sub: 'user-42', roles: ['CUSTOMER'], exp: now() + 60 })],
    ['no sub', () => hs256({ roles: ['CUSTOMER'], exp: now() + 60 })],
    ['roles that are not an array', () => hs256({ sub, roles: 'ADMIN', exp: now() + 60 })],
    ['a future nbf', () => hs256({ sub, exp: now() + 3600, nbf: now() + 600 })],
    ['alg none', async () => new UnsecuredJWT({ sub, roles: ['ADMIN'] }).setExpirationTime('1h').encode()],
    ['garbage', async () => 'not-a-jwt'],
    ['three garbage segments', async () => 'aaa.bbb.ccc'],
    ['a JWE-shaped value', async () => 'a.b.c.d.e'],
    [
      'an expired token with a wrong signature (invalid wins: expiry of a forged token means nothing)',
      () => signAccessToken(`${SECRET}-other`, { sub, roles: ['CUSTOMER'], ttlSeconds: -3600 }),
    ],
  ])('rejects a token with %s as invalid', async (_case, makeToken) => {
    await expect(verifier.verify(await makeToken())).resolves.toEqual({ failure: 'invalid' });
  });

  it('rejects an asymmetric token (only HS256 is trusted with the secret)', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const token = await new SignJWT({ sub, roles: ['ADMIN'] })
      .setProtectedHeader({ alg: 'RS256' })
      .setExpirationTime('1h')
      .sign(privateKey);
    await expect(verifier.verify(token)).resolves.toEqual({ failure: 'invalid' });
  });

  it.each<[string, string[], unknown]>([
    ['a missing roles claim', ['CUSTOMER'], undefined],
    ['an empty roles claim', ['CUSTOMER'], []],
    ['only unknown roles', ['CUSTOMER'], ['SUPPORT', 42]],
    ['unknown roles beside known ones', ['ADMIN'], ['SUPPORT', 'ADMIN']],
    ['repeated roles', ['ADMIN'], ['ADMIN', 'ADMIN']],
    ['lower-case role names (not roles of ours)', ['CUSTOMER'], ['admin']],
  ])('maps %s to the roles %j', async (_case, expected, roles) => {
    const token = await hs256({ sub, exp: now() + 60, ...(roles !== undefined && { roles }) });
    await expect(verifier.verify(token)).resolves.toEqual({ caller: { userId: sub, roles: expected } });
  });

  it('remembers a verified token only until it expires (then it reads as expired)', async () => {
    const fresh = TokenVerifier.fromConfig(authConfig());
    const token = await hs256({ sub, roles: ['CUSTOMER'], exp: now() + 60 });
    await expect(fresh.verify(token)).resolves.toEqual({ caller: { userId: sub, roles: ['CUSTOMER'] } });
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      jest.setSystemTime(Date.now() + 30_000);
      await expect(fresh.verify(token)).resolves.toEqual({ caller: { userId: sub, roles: ['CUSTOMER'] } });
      jest.setSystemTime(Date.now() + 60_000);
      await expect(fresh.verify(token)).resolves.toEqual({ failure: 'expired' });
    } finally {
      jest.useRealTimers();
    }
  });

  it('never takes a different token for a remembered one', async () => {
    const fresh = TokenVerifier.fromConfig(authConfig());
    const token = await signAccessToken(SECRET, { sub, roles: ['ADMIN'] });
    await fresh.verify(token);
    const [header, payload] = token.split('.');
    await expect(fresh.verify(`${header}.${payload}.${'A'.repeat(43)}`)).resolves.toEqual({
      failure: 'invalid',
    });
  });

  it('checks issuer and audience when configured', async () => {
    const strict = TokenVerifier.fromConfig(authConfig({ issuer: 'https://idp.test', audience: 'orders' }));
    const good = await signAccessToken(SECRET, {
      sub,
      roles: ['CUSTOMER'],
      issuer: 'https://idp.test',
      audience: 'orders',
    });
    const foreignAudience = await signAccessToken(SECRET, {
      sub,
      roles: ['CUSTOMER'],
      issuer: 'https://idp.test',
      audience: 'billing',
    });
    const noIssuer = await signAccessToken(SECRET, { sub, roles: ['CUSTOMER'], audience: 'orders' });
    await expect(strict.verify(good)).resolves.toHaveProperty('caller.userId', sub);
    await expect(strict.verify(foreignAudience)).resolves.toEqual({ failure: 'invalid' });
    await expect(strict.verify(noIssuer)).resolves.toEqual({ failure: 'invalid' });
  });
});

describe('TokenVerifier with an identity provider (JWKS)', () => {
  let server: Server;
  let jwksUrl: string;
  let rsaKey: KeyLike;
  let rsaPublicPem: string;
  let ecKey: KeyLike;
  let jwksStatus = 200;
  const sub = randomUUID();
  const issuer = 'https://idp.test';
  const audience = 'order-service';

  beforeAll(async () => {
    const rsa = await generateKeyPair('RS256');
    const ec = await generateKeyPair('ES256');
    rsaKey = rsa.privateKey;
    ecKey = ec.privateKey;
    rsaPublicPem = await exportSPKI(rsa.publicKey);
    const keys = [
      { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
      { ...(await exportJWK(ec.publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' },
    ];
    server = createServer((_request, response) => {
      response.writeHead(jwksStatus, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ keys }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    jwksStatus = 200;
  });

  const verifier = () => TokenVerifier.fromConfig(authConfig({ jwksUrl, issuer, audience }));
  /** A provider token; `claims` override the defaults (the setters would overwrite payload members). */
  const signed = (alg: 'RS256' | 'ES256', key: KeyLike, kid: string, claims: JWTPayload = {}) =>
    new SignJWT({ sub, roles: ['ADMIN'], iss: issuer, aud: audience, exp: now() + 300, ...claims })
      .setProtectedHeader({ alg, kid })
      .sign(key);

  it.each<['RS256' | 'ES256', string]>([
    ['RS256', 'rsa-1'],
    ['ES256', 'ec-1'],
  ])('accepts %s tokens signed by the provider', async (alg, kid) => {
    const token = await signed(alg, alg === 'RS256' ? rsaKey : ecKey, kid);
    await expect(verifier().verify(token)).resolves.toEqual({ caller: { userId: sub, roles: ['ADMIN'] } });
  });

  it('rejects HS256 tokens, even one keyed with the provider public key (algorithm confusion)', async () => {
    const confused = await new SignJWT({ sub, roles: ['ADMIN'] })
      .setProtectedHeader({ alg: 'HS256', kid: 'rsa-1' })
      .setIssuer(issuer)
      .setAudience(audience)
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(rsaPublicPem));
    const sharedSecret = await signAccessToken(SECRET, { sub, roles: ['ADMIN'], issuer, audience });
    await expect(verifier().verify(confused)).resolves.toEqual({ failure: 'invalid' });
    await expect(verifier().verify(sharedSecret)).resolves.toEqual({ failure: 'invalid' });
  });

  it('rejects a token of an unknown key, another issuer or another audience', async () => {
    const stranger = (await generateKeyPair('RS256')).privateKey;
    const v = verifier();
    await expect(v.verify(await signed('RS256', stranger, 'rsa-9'))).resolves.toEqual({ failure: 'invalid' });
    await expect(v.verify(await signed('RS256', stranger, 'rsa-1'))).resolves.toEqual({ failure: 'invalid' });
    await expect(
      v.verify(await signed('RS256', rsaKey, 'rsa-1', { iss: 'https://evil.test' })),
    ).resolves.toEqual({ failure: 'invalid' });
    await expect(v.verify(await signed('RS256', rsaKey, 'rsa-1', { aud: 'billing' }))).resolves.toEqual({
      failure: 'invalid',
    });
  });

  it('reports expiry of a provider token', async () => {
    const expired = await signed('RS256', rsaKey, 'rsa-1', { exp: now() - 600 });
    await expect(verifier().verify(expired)).resolves.toEqual({ failure: 'expired' });
  });

  it('fails with TokenKeysUnavailableError, not an invalid token, when the key set cannot be fetched', async () => {
    const token = await signed('RS256', rsaKey, 'rsa-1');
    jwksStatus = 500;
    await expect(verifier().verify(token)).rejects.toBeInstanceOf(TokenKeysUnavailableError);
    const unreachable = TokenVerifier.fromConfig(
      authConfig({ jwksUrl: 'http://127.0.0.1:1/jwks.json', issuer, audience }),
    );
    await expect(unreachable.verify(token)).rejects.toBeInstanceOf(TokenKeysUnavailableError);
  });
});
