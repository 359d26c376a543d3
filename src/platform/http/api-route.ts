import type { FastifyRequest } from 'fastify';

/**
 * Whether a request hit a business route under /api (auth and rate limits apply there, never to the
 * operational endpoints). Decided by the matched route's pattern, not the raw URL, so encodings of the
 * path cannot dodge it.
 */
export function isApiRoute(request: FastifyRequest): boolean {
  const path = request.routeOptions.url ?? request.url.split('?', 1)[0];
  return path === '/api' || path.startsWith('/api/');
}
