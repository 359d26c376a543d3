import type { FastifyInstance } from 'fastify';
import { ifNoneMatchHits } from './conditional-requests';

/**
 * `If-None-Match` for every read, in one place: when a GET (or HEAD) answers 200 with an `ETag` that the
 * request's `If-None-Match` names, the answer becomes 304 without a body. The headers the handler set (ETag,
 * Cache-Control) stay, as RFC 9110 §15.4.5 wants. Controllers only set `ETag`. A Fastify `onSend` hook rather
 * than a Nest interceptor: no rxjs pipeline around every handler (docs/decisions/0023-json-output-rules.md).
 */
export function registerConditionalRead(fastify: FastifyInstance): void {
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (
      (request.method !== 'GET' && request.method !== 'HEAD') ||
      reply.statusCode !== 200 ||
      request.headers['if-none-match'] === undefined
    ) {
      return done(null, payload);
    }
    const etag = reply.getHeader('etag');
    if (typeof etag !== 'string' || !ifNoneMatchHits(request, etag)) return done(null, payload);
    void reply.code(304).removeHeader('content-type').removeHeader('content-length');
    done(null, '');
  });
}
