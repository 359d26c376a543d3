import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/**
 * The contract uses no `X-` headers; helmet's legacy ones protect only old browsers (IE's download
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
export const API_SECURITY_HEADERS: FastifyHelmetOptions = {
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
export const DOCS_SECURITY_HEADERS: Omit<FastifyHelmetOptions, 'global'> = {
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

/**
 * What helmet sends with API_SECURITY_HEADERS, for the answers Fastify gives before routing, when no hook
 * runs (a malformed path: framework-errors.ts). test/security-headers.e2e-spec.ts checks that such an
 * answer carries the same headers as any other.
 */
export const PRE_ROUTING_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none';frame-ancestors 'none'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

/**
 * Registers the headers on every route, business, operational and documentation alike; a route takes
 * other settings with its `helmet` option (Swagger UI's routes take DOCS_SECURITY_HEADERS).
 */
export async function registerSecurityHeaders(fastify: FastifyInstance): Promise<void> {
  await fastify.register(helmet, API_SECURITY_HEADERS);
}
