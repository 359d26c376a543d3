import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** Methods the API's routes take (a preflight for any other is answered without it). */
export const CORS_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Request headers a browser client may send beyond the CORS-safelisted ones. */
export const CORS_REQUEST_HEADERS = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'If-Match',
  'If-None-Match',
  'Accept-Language',
  'traceparent',
] as const;

/** Response headers a browser client may read beyond the CORS-safelisted ones. */
export const CORS_EXPOSED_HEADERS = [
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
] as const;

/** How long a browser may reuse a preflight answer, in seconds. */
export const CORS_MAX_AGE_SECONDS = 600;

/**
 * CORS for the origins the `CORS_ORIGINS` setting lists; with none (the default) nothing is registered and
 * no response carries a CORS header. A request from a listed origin gets `Access-Control-Allow-Origin`
 * (its own origin, never `*`) and the exposed headers on every response, errors included; its preflight is
 * answered before authentication (browsers send no token with it) with the methods and headers above. A
 * request from any other origin, or without one, gets no CORS header; its preflight is the route's 405.
 * Bearer tokens travel in a header, not in cookies, so credentials are not allowed.
 */
export async function registerCors(fastify: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  const allowed = new Set(origins);
  await fastify.register(cors, {
    origin: (origin, callback) =>
      callback(null, origin !== undefined && allowed.has(origin) ? origin : false),
    methods: [...CORS_METHODS],
    allowedHeaders: [...CORS_REQUEST_HEADERS],
    exposedHeaders: [...CORS_EXPOSED_HEADERS],
    maxAge: CORS_MAX_AGE_SECONDS,
    credentials: false,
    // An OPTIONS request from an allowed origin without Access-Control-Request-Method is answered like a
    // preflight, not with the plugin's plain-text 400 (every error of the service is a problem).
    strictPreflight: false,
  });
}

/**
 * The CORS headers registerCors gives an actual (not preflight) response to a request from `origin`, for
 * the answers Fastify gives before any hook runs (framework-errors.ts); the e2e suite checks they agree.
 */
export function corsResponseHeaders(
  origins: readonly string[],
  origin: string | undefined,
): Record<string, string> {
  if (origins.length === 0) return {};
  if (origin === undefined || !origins.includes(origin)) return { vary: 'Origin' };
  return {
    vary: 'Origin',
    'access-control-allow-origin': origin,
    'access-control-expose-headers': CORS_EXPOSED_HEADERS.join(', '),
  };
}
