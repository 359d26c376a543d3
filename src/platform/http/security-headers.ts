import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The API sends no `X-` headers; helmet's legacy ones protect only old browsers (IE's download
 * dialog and XSS auditor, Flash and Acrobat policies, DNS prefetching of a JSON body) and are left out.
 * `X-Content-Type-Options` and `X-Frame-Options` stay: standard headers every browser honours.
 */
const LEGACY_HEADERS_OFF = {
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
} as const;

/**
 * Security headers of every response (helmet), set for a JSON API: a response is never to be rendered,
 * framed or sniffed. `default-src 'none'` and `frame-ancestors 'none'` as OWASP's REST cheat sheet
 * recommends (nothing a JSON client reads depends on them; a body that a browser did render could load
 * nothing), `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY`, no `X-Powered-By`, and helmet's
 * other defaults (`Strict-Transport-Security` for a year, `Referrer-Policy: no-referrer`,
 * `Cross-Origin-Opener-Policy` and `Cross-Origin-Resource-Policy: same-origin`, which CORS requests are
 * not subject to).
 */
const API_HELMET_OPTIONS: HelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
  },
  frameguard: { action: 'deny' },
  ...LEGACY_HEADERS_OFF,
};

/**
 * The interactive documentation at /docs (outside production only): Swagger UI's page loads its scripts,
 * styles and pictures from /docs itself (no inline script: the initializer is a file too) and fetches the
 * document from the same origin. Styles may be inline (the UI sets some), nothing may come from elsewhere,
 * and no `upgrade-insecure-requests`, which would break the UI on a plain-HTTP local run.
 */
const DOCS_HELMET_OPTIONS: HelmetOptions = {
  ...LEGACY_HEADERS_OFF,
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  },
  frameguard: { action: 'deny' },
};

/** A response's security headers: names in lower case, values as sent. */
export type SecurityHeaders = Readonly<Record<string, string>>;

/**
 * The headers helmet sends for `options`, worked out once. helmet's middleware parses its options on every
 * call, and @fastify/helmet built a new one for every request (docs/decisions/0076-security-headers.md); with
 * static options the headers are the same for every response, so they are computed at start and only copied.
 */
export function securityHeadersOf(options: HelmetOptions): SecurityHeaders {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: unknown) {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  // helmet reads nothing of the request when no directive is a function (none is here).
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, () => undefined);
  return Object.freeze(headers);
}

/** Every API, operational and error response; also the answers Fastify gives before routing. */
export const API_SECURITY_HEADERS = securityHeadersOf(API_HELMET_OPTIONS);

/** Swagger UI's page and assets (route config `securityHeaders`). */
export const DOCS_SECURITY_HEADERS = securityHeadersOf(DOCS_HELMET_OPTIONS);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Security headers of this route other than API_SECURITY_HEADERS (securityHeadersOf). */
    securityHeaders?: SecurityHeaders;
  }
}

/**
 * Sets the security headers on every route, business, operational and documentation alike, in the first
 * request hook (so an answer a later hook gives, 401 or 429, carries them too); a route takes other ones with
 * its `securityHeaders` config (Swagger UI's routes take DOCS_SECURITY_HEADERS).
 */
export function registerSecurityHeaders(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const headers = request.routeOptions.config.securityHeaders ?? API_SECURITY_HEADERS;
    for (const name in headers) reply.raw.setHeader(name, headers[name]);
    done();
  });
}
