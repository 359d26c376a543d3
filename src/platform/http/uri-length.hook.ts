import type { FastifyInstance } from 'fastify';
import { AppException } from '../problem/app-exception';

/**
 * The longest request URI (path and query) the service reads: 8 KiB. Long enough for any list query the
 * API offers (clients and proxies commonly limit a GET URL to 2,000–8,000 characters), short
 * of Node's 16 KiB header limit, so a client that goes past it learns why — 414 URI_TOO_LONG pointing at
 * POST /search — instead of a 431 about headers.
 */
export const MAX_URI_LENGTH = 8192;

export function registerUriLengthLimit(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    if (request.url.length > MAX_URI_LENGTH)
      done(new AppException('URI_TOO_LONG', { args: { max: MAX_URI_LENGTH } }));
    else done();
  });
}
