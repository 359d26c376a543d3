import { randomUUID } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, JWTPayload, KeyLike, SignJWT, UnsecuredJWT } from 'jose';
import { signAccessToken } from '../src/platform/auth/token-signer';
import { expectProblemEnvelope } from './support/problem';
import { AuthProbeModule } from './support/probes/auth.probe';
import { bearer, callerToken } from './support/tokens';
import { bootTestApp, TestApp } from './support/test-app';

const PLAIN_CHALLENGE = 'Bearer';
const INVALID_TOKEN_CHALLENGE = 'Bearer error="invalid_token"';
const EXPIRED_CHALLENGE = 'Bearer error="invalid_token", error_description="The access token expired"';

const DETAIL = {
  missing: {
    en: 'A valid bearer token is required.',
    ru: 'Требуется действительный токен доступа (Bearer).',
  },
  invalid: { en: 'The bearer token is invalid.', ru: 'Токен доступа недействителен.' },
  expired: {
    en: 'The bearer token has expired; obtain a new one.',
    ru: 'Срок действия токена доступа истёк; получите новый.',
  },
};

describe('bearer authentication with the shared secret', () => {
  let t: TestApp;
  let secret: string;
  beforeAll(async () => {
    t = await bootTestApp({}, [AuthProbeModule]);
    secret = t.config.auth.jwtSecret;
  });
  afterAll(() => t.close());

  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers });
  const hs256 = (claims: JWTPayload, key = secret) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(key));
  const inOneHour = () => Math.floor(Date.now() / 1000) + 3600;

  describe.each<[string, () => Promise<string | undefined>, keyof typeof DETAIL, string]>([
    ['no Authorization header', async () => undefined, 'missing', PLAIN_CHALLENGE],
    ['another scheme (Basic)', async () => 'Basic dXNlcjpwYXNz', 'missing', PLAIN_CHALLENGE],
    [
      'a valid token without the Bearer word',
      () => signAccessToken(secret, { sub: randomUUID(), roles: ['ADMIN'] }),
      'missing',
      PLAIN_CHALLENGE,
    ],
    ['the Bearer word alone', async () => 'Bearer', 'missing', PLAIN_CHALLENGE],
    ['a garbage token', async () => 'Bearer not-a-token', 'invalid', INVALID_TOKEN_CHALLENGE],
    ['a malformed bearer value', async () => 'Bearer two tokens', 'invalid', INVALID_TOKEN_CHALLENGE],
    [
      'a wrong signature',
      async () =>
        `Bearer ${await signAccessToken(`${secret}-forged`, { sub: randomUUID(), roles: ['ADMIN'] })}`,
      'invalid',
      INVALID_TOKEN_CHALLENGE,
    ],
    [
      'a token without exp',
      async () => `Bearer ${await hs256({ sub: randomUUID(), roles: ['ADMIN'] })}`,
      'invalid',
      INVALID_TOKEN_CHALLENGE,
    ],
    [
      'a non-uuid sub',
      async () => `Bearer ${await hs256({ sub: 'alice', roles: ['ADMIN'], exp: inOneHour() })}`,
      'invalid',
      INVALID_TOKEN_CHALLENGE,
    ],
    [
      'alg none',
      async () =>
        `Bearer ${new UnsecuredJWT({ sub: randomUUID(), roles: ['ADMIN'] }).setExpirationTime('1h').encode()}`,
      'invalid',
      INVALID_TOKEN_CHALLENGE,
    ],
    [
      'an expired token',
      async () =>
        `Bearer ${await signAccessToken(secret, { sub: randomUUID(), roles: ['ADMIN'], ttlSeconds: -60 })}`,
      'expired',
      EXPIRED_CHALLENGE,
    ],
  ])('%s', (_case, authorization, failure, challenge) => {
    it.each(['ru', 'en'] as const)(
      `is 401 UNAUTHORIZED with WWW-Authenticate: ${challenge} (%s)`,
      async (lang) => {
        const header = await authorization();
        const res = await get('/api/v1/auth-probe/caller', {
          'accept-language': lang,
          ...(header !== undefined && { authorization: header }),
        });
        expectProblemEnvelope(res, 401, 'UNAUTHORIZED');
        expect(res.json()).toMatchObject({ title: 'Unauthorized', detail: DETAIL[failure][lang] });
        expect(res.headers['www-authenticate']).toBe(challenge);
        expect(res.headers['content-language']).toBe(lang);
      },
    );
  });

  it('gives the handler the caller as {userId, roles}', async () => {
    const { sub, authorization } = await callerToken(t.config, ['ADMIN', 'CUSTOMER']);
    const res = await get('/api/v1/auth-probe/caller', { authorization });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ userId: sub, roles: ['CUSTOMER', 'ADMIN'] });
  });

  it('accepts the scheme word in any case', async () => {
    const authorization = (await bearer(t.config)).replace('Bearer', 'bearer');
    expect((await get('/api/v1/auth-probe/caller', { authorization })).statusCode).toBe(200);
  });

  it('treats a token naming no known role as a CUSTOMER', async () => {
    const sub = randomUUID();
    const token = await hs256({ sub, roles: ['SUPPORT'], exp: inOneHour() });
    const res = await get('/api/v1/auth-probe/caller', { authorization: `Bearer ${token}` });
    expect(res.json()).toEqual({ userId: sub, roles: ['CUSTOMER'] });
  });

  describe('roles', () => {
    it.each(['ru', 'en'] as const)(
      'refuses a CUSTOMER on an ADMIN route with 403 ACCESS_DENIED (%s)',
      async (lang) => {
        const res = await get('/api/v1/auth-probe/admin', {
          authorization: await bearer(t.config, ['CUSTOMER']),
          'accept-language': lang,
        });
        expectProblemEnvelope(res, 403, 'ACCESS_DENIED');
        expect(res.json()).toMatchObject({
          title: 'Forbidden',
          detail: {
            en: 'You are not allowed to perform this operation.',
            ru: 'У вас нет прав на эту операцию.',
          }[lang],
        });
        expect(res.headers['www-authenticate']).toBeUndefined();
      },
    );

    it('lets an ADMIN in', async () => {
      const { sub, authorization } = await callerToken(t.config, ['ADMIN']);
      const res = await get('/api/v1/auth-probe/admin', { authorization });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ userId: sub, roles: ['ADMIN'] });
    });

    it('authenticates before it authorizes: no token on an ADMIN route is 401, not 403', async () => {
      const res = await get('/api/v1/auth-probe/admin');
      expectProblemEnvelope(res, 401, 'UNAUTHORIZED');
    });

    it('applies @Roles() on a controller, and a handler @Roles() replaces it', async () => {
      const customer = await bearer(t.config, ['CUSTOMER']);
      const admin = await bearer(t.config, ['ADMIN']);
      expectProblemEnvelope(
        await get('/api/v1/auth-probe-admin', { authorization: customer }),
        403,
        'ACCESS_DENIED',
      );
      expect((await get('/api/v1/auth-probe-admin', { authorization: admin })).statusCode).toBe(200);
      expect((await get('/api/v1/auth-probe-admin/shared', { authorization: customer })).statusCode).toBe(
        200,
      );
      expect((await get('/api/v1/auth-probe-admin/shared', { authorization: admin })).statusCode).toBe(200);
    });
  });

  describe('routes without authentication', () => {
    it('serves a @Public() route with no token, and ignores a bad one there', async () => {
      for (const headers of [{}, { authorization: 'Bearer not-a-token' }] as Record<string, string>[]) {
        const res = await get('/api/v1/auth-probe/public', headers);
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({ public: true });
      }
    });

    it.each(['/health', '/ready', '/info', '/metrics', '/docs', '/docs/openapi.json'])(
      'never authenticates %s',
      async (url) => {
        for (const headers of [{}, { authorization: 'Bearer not-a-token' }] as Record<string, string>[]) {
          const res = await get(url, headers);
          expect(res.statusCode).not.toBe(401);
          expect(res.headers['www-authenticate']).toBeUndefined();
        }
      },
    );
  });
});

describe('bearer authentication with an identity provider (JWT_JWKS_URL)', () => {
  let jwks: Server;
  let jwksBase: string;
  let providerKey: KeyLike;
  const issuer = 'https://idp.example.test';
  const audience = 'order-service';

  beforeAll(async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    providerKey = privateKey;
    const keys = [{ ...(await exportJWK(publicKey)), kid: 'key-1', alg: 'ES256', use: 'sig' }];
    // /jwks.json serves the key set; any other path plays an identity provider that is down.
    jwks = createServer((request, response) => {
      const up = request.url === '/jwks.json';
      response.writeHead(up ? 200 : 503, { 'content-type': 'application/json' });
      response.end(up ? JSON.stringify({ keys }) : '{}');
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    jwksBase = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => jwks.close(() => resolve())));

  const bootWithKeysAt = (path: string) =>
    bootTestApp({ JWT_JWKS_URL: `${jwksBase}${path}`, JWT_ISSUER: issuer, JWT_AUDIENCE: audience }, [
      AuthProbeModule,
    ]);
  const providerToken = (sub: string) =>
    new SignJWT({ sub, roles: ['ADMIN'] })
      .setProtectedHeader({ alg: 'ES256', kid: 'key-1' })
      .setIssuer(issuer)
      .setAudience(audience)
      .setExpirationTime('5m')
      .sign(providerKey);
  const getAdminRoute = (t: TestApp, authorization: string, lang = 'en') =>
    t.app.inject({
      method: 'GET',
      url: '/api/v1/auth-probe/admin',
      headers: { authorization, 'accept-language': lang },
    });

  describe('while the key set is reachable', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await bootWithKeysAt('/jwks.json');
    });
    afterAll(() => t.close());

    it("accepts the provider's tokens", async () => {
      const sub = randomUUID();
      const res = await getAdminRoute(t, `Bearer ${await providerToken(sub)}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ userId: sub, roles: ['ADMIN'] });
    });

    it('no longer trusts tokens signed with the shared secret', async () => {
      const res = await getAdminRoute(t, await bearer(t.config, ['ADMIN']));
      expectProblemEnvelope(res, 401, 'UNAUTHORIZED');
      expect(res.headers['www-authenticate']).toBe(INVALID_TOKEN_CHALLENGE);
    });
  });

  describe('while the key set cannot be fetched', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await bootWithKeysAt('/down/jwks.json');
    });
    afterAll(() => t.close());

    it.each(['ru', 'en'])('answers 503 SERVICE_UNAVAILABLE with Retry-After, not 401 (%s)', async (lang) => {
      const res = await getAdminRoute(t, `Bearer ${await providerToken(randomUUID())}`, lang);
      expectProblemEnvelope(res, 503, 'SERVICE_UNAVAILABLE');
      expect(res.headers['retry-after']).toBe('5');
      expect(res.headers['www-authenticate']).toBeUndefined();
      expect(res.json().detail).toBe(
        {
          en: "Bearer tokens cannot be verified right now (the identity provider's keys are unreachable); retry later.",
          ru: 'Сейчас нельзя проверить токены доступа (ключи поставщика удостоверений недоступны); повторите позже.',
        }[lang],
      );
    });
  });
});
