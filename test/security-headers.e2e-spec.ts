import type { LightMyRequestResponse } from 'fastify';
import { adminClient, customerClient } from './support/callers';
import { ApiClient } from './support/http-client';
import { ORDERS } from './support/orders';
import { API_SECURITY_HEADERS } from '../src/platform/http/security-headers';
import { PROBLEM_JSON } from './support/problem';
import { bootTestApp, TestApp } from './support/test-app';

/**
 * Security headers (helmet) on every kind of response, and CORS: off unless `CORS_ORIGINS` lists origins,
 * then for those origins only, preflights included.
 */

const SHOP = 'https://shop.example.com';
const LOCAL = 'http://localhost:5173';
const STRANGER = 'https://evil.example.net';

/** The headers a JSON API response must have, whatever answered it. */
function expectApiSecurityHeaders(res: LightMyRequestResponse, what: string): void {
  const headers = {
    what,
    nosniff: res.headers['x-content-type-options'],
    frame: res.headers['x-frame-options'],
    csp: res.headers['content-security-policy'],
    poweredBy: res.headers['x-powered-by'],
    referrer: res.headers['referrer-policy'],
    hsts: res.headers['strict-transport-security'],
  };
  expect(headers).toEqual({
    what,
    nosniff: 'nosniff',
    frame: 'DENY',
    csp: "default-src 'none';frame-ancestors 'none'",
    poweredBy: undefined,
    referrer: 'no-referrer',
    hsts: expect.stringMatching(/^max-age=\d+/),
  });
}

const corsHeaderNames = (res: LightMyRequestResponse): string[] =>
  Object.keys(res.headers).filter((name) => name.startsWith('access-control-'));

/**
 * Requests answered by each part of the service (a handler, the problem filter, Fastify before routing,
 * the operational endpoints), each sent with `headers` besides its own.
 */
function answers(
  t: TestApp,
  client: ApiClient,
  admin: ApiClient,
  headers: Record<string, string> = {},
): Array<[string, number, () => Promise<LightMyRequestResponse>]> {
  const inject = (url: string) => t.app.inject({ method: 'GET', url, headers });
  return [
    ['a business success', 200, () => client('GET', '/api/v1/products', { headers })],
    [
      'a created resource',
      201,
      () =>
        client('POST', ORDERS, { body: {}, headers: { ...headers, 'idempotency-key': crypto.randomUUID() } }),
    ],
    ['a validation problem', 400, () => client('GET', '/api/v1/products?size=0', { headers })],
    ['a 401 problem', 401, () => inject(ORDERS)],
    ['a 403 problem', 403, () => client('POST', '/api/v1/products', { body: {}, headers })],
    ['a 404 problem of an unknown route', 404, () => client('GET', '/api/v1/nothing-here', { headers })],
    ['a 405 problem', 405, () => admin('DELETE', '/api/v1/products', { headers })],
    ['a 415 problem', 415, () => client('POST', ORDERS, { body: {}, contentType: 'text/csv', headers })],
    ['a problem before routing (a malformed path)', 400, () => inject('/api/v1/orders/%E0%A4%A')],
    ['the liveness probe', 200, () => inject('/health')],
    ['the readiness probe', 200, () => inject('/ready')],
    ['the metrics', 200, () => inject('/metrics')],
    ['the OpenAPI document', 200, () => inject('/docs/openapi.json')],
  ];
}

describe('security headers and CORS', () => {
  describe('with CORS_ORIGINS unset (the default)', () => {
    let t: TestApp;
    let client: ApiClient;
    let admin: ApiClient;
    beforeAll(async () => {
      t = await bootTestApp({ CORS_ORIGINS: undefined });
      client = await customerClient(t);
      admin = await adminClient(t);
    });
    afterAll(() => t.close());

    it('sends the security headers on success, problem and operational responses, and no CORS header', async () => {
      for (const [what, status, send] of answers(t, client, admin)) {
        const res = await send();
        expect({ what, status: res.statusCode }).toEqual({ what, status });
        if (status >= 400) expect(res.headers['content-type']).toMatch(PROBLEM_JSON);
        expectApiSecurityHeaders(res, what);
        expect({ what, cors: corsHeaderNames(res) }).toEqual({ what, cors: [] });
      }
    });

    it('gives an answer before routing exactly the security headers helmet gives any other', async () => {
      const early = await t.app.inject({ method: 'GET', url: '/api/v1/orders/%E0%A4%A' });
      const routed = await t.app.inject({ method: 'GET', url: '/api/v1/nothing-here' });
      const names = Object.keys(API_SECURITY_HEADERS);
      const pick = (res: LightMyRequestResponse) =>
        Object.fromEntries(names.map((name) => [name, res.headers[name]]));
      expect(pick(early)).toEqual(pick(routed));
      expect(pick(routed)).toEqual(API_SECURITY_HEADERS);
      // Nothing helmet sends is missing from the list.
      const helmetNames = Object.keys(routed.headers).filter(
        (name) =>
          name.startsWith('x-') ||
          name.includes('policy') ||
          name.includes('security') ||
          name === 'origin-agent-cluster',
      );
      expect(helmetNames.sort()).toEqual([...names].sort());
    });

    it('sends no CORS header to a request from another origin, and has no preflight', async () => {
      const res = await client('GET', '/api/v1/products', { headers: { origin: SHOP } });
      expect(res.statusCode).toBe(200);
      expect(corsHeaderNames(res)).toEqual([]);
      const preflight = await t.app.inject({
        method: 'OPTIONS',
        url: ORDERS,
        headers: { origin: SHOP, 'access-control-request-method': 'POST' },
      });
      expect(preflight.statusCode).toBe(405);
      expect(preflight.headers['content-type']).toMatch(PROBLEM_JSON);
      expect(corsHeaderNames(preflight)).toEqual([]);
    });

    it('serves Swagger UI under a policy that lets its own scripts, styles and document load, and nothing else', async () => {
      const page = await t.app.inject({ method: 'GET', url: '/docs' });
      expect(page.statusCode).toBe(200);
      expect(page.headers['x-content-type-options']).toBe('nosniff');
      const csp = String(page.headers['content-security-policy']);
      const directives = Object.fromEntries(
        csp.split(';').map((directive) => {
          const [name, ...values] = directive.trim().split(/\s+/);
          return [name, values];
        }),
      );
      expect(directives).toMatchObject({
        'default-src': ["'self'"],
        'script-src': ["'self'"],
        'style-src': ["'self'", "'unsafe-inline'"],
        'img-src': ["'self'", 'data:'],
        'connect-src': ["'self'"],
        'object-src': ["'none'"],
        'frame-ancestors': ["'none'"],
      });
      expect(csp).not.toContain('upgrade-insecure-requests');
      // Every script is a file of this origin (script-src 'self' allows no inline script), and so is
      // every stylesheet; the initializer fetches the document from this origin too.
      const scripts = [...page.body.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
      expect(scripts.length).toBeGreaterThan(0);
      for (const [, attributes, inline] of scripts) {
        expect(attributes).toMatch(/src="\/docs\//);
        expect(inline.trim()).toBe('');
      }
      for (const [, href] of page.body.matchAll(/<link[^>]*href="([^"]+)"/g))
        expect(href).toMatch(/^\/docs\//);
      const initializer = await t.app.inject({ method: 'GET', url: '/docs/swagger-initializer.js' });
      expect(initializer.body).toContain('url: "/docs/openapi.json"');
      expect(initializer.headers['content-security-policy']).toBe(csp);
    });
  });

  describe(`with CORS_ORIGINS=${SHOP},${LOCAL}`, () => {
    let t: TestApp;
    let client: ApiClient;
    let admin: ApiClient;
    beforeAll(async () => {
      t = await bootTestApp({ CORS_ORIGINS: `${SHOP}, ${LOCAL}` });
      client = await customerClient(t);
      admin = await adminClient(t);
    });
    afterAll(() => t.close());

    const EXPOSED = [
      'Location',
      'ETag',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Retry-After',
      'traceparent',
      'Deprecation',
      'Sunset',
      'Link',
      'Content-Disposition',
      'Idempotent-Replayed',
      'Content-Language',
    ];

    it('allows a listed origin on every response (success, problems, operational), exposing what clients read', async () => {
      for (const origin of [SHOP, LOCAL]) {
        for (const [what, status, send] of answers(t, client, admin, { origin })) {
          const res = await send();
          expect({ what, status: res.statusCode }).toEqual({ what, status });
          expect({ what, origin: res.headers['access-control-allow-origin'] }).toEqual({ what, origin });
          expect(String(res.headers['access-control-expose-headers']).split(/,\s*/)).toEqual(EXPOSED);
          expect(res.headers['access-control-allow-credentials']).toBeUndefined();
          expect(String(res.headers.vary)).toMatch(/\bOrigin\b/i);
          expectApiSecurityHeaders(res, what);
        }
      }
    });

    it('sends nothing of CORS to another origin, nor to a request without one', async () => {
      for (const headers of [{ origin: STRANGER }, { origin: 'null' }, {}] as Array<Record<string, string>>) {
        const res = await client('GET', '/api/v1/products', { headers });
        expect(res.statusCode).toBe(200);
        expect(corsHeaderNames(res)).toEqual([]);
      }
    });

    it('answers the preflight of a listed origin before authentication, with the methods and headers of the API', async () => {
      const res = await t.app.inject({
        method: 'OPTIONS',
        url: ORDERS,
        headers: {
          origin: SHOP,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type, idempotency-key',
        },
      });
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expect(res.headers['access-control-allow-origin']).toBe(SHOP);
      expect(String(res.headers['access-control-allow-methods']).split(/,\s*/)).toEqual([
        'GET',
        'POST',
        'PUT',
        'PATCH',
        'DELETE',
      ]);
      expect(String(res.headers['access-control-allow-headers']).split(/,\s*/)).toEqual([
        'Authorization',
        'Content-Type',
        'Idempotency-Key',
        'If-Match',
        'If-None-Match',
        'Accept-Language',
        'traceparent',
      ]);
      expect(res.headers['access-control-max-age']).toBe('600');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      // Not counted by the rate limiter, which never saw it.
      expect(res.headers['ratelimit-limit']).toBeUndefined();
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    });

    it('answers the preflight of a parametric path and of an action, from the other listed origin', async () => {
      for (const url of [`${ORDERS}/${crypto.randomUUID()}`, `${ORDERS}/${crypto.randomUUID()}/confirm`]) {
        const res = await t.app.inject({
          method: 'OPTIONS',
          url,
          headers: { origin: LOCAL, 'access-control-request-method': 'PATCH' },
        });
        expect(res.statusCode).toBe(204);
        expect(res.headers['access-control-allow-origin']).toBe(LOCAL);
      }
    });

    it('refuses the preflight of another origin: 405 as without CORS, no CORS header', async () => {
      const res = await t.app.inject({
        method: 'OPTIONS',
        url: ORDERS,
        headers: { origin: STRANGER, 'access-control-request-method': 'POST' },
      });
      expect(res.statusCode).toBe(405);
      expect(res.headers['content-type']).toMatch(PROBLEM_JSON);
      expect(res.json()).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
      expect(res.headers.allow).toBe('GET, HEAD, POST');
      expect(corsHeaderNames(res)).toEqual([]);
    });

    it('still tells an unknown path (404) from a known one with another method (405)', async () => {
      const unknown = await client('GET', '/api/v1/nothing-here', { headers: { origin: SHOP } });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
      const other = await admin('DELETE', '/api/v1/products', { headers: { origin: SHOP } });
      expect(other.statusCode).toBe(405);
      expect(other.headers.allow).toBe('GET, HEAD, POST');
    });
  });
});
