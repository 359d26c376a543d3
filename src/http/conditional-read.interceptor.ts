import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { map, Observable } from 'rxjs';
import { ifNoneMatchHits } from './conditional-requests';

/**
 * `If-None-Match` for every read, in one place: when a GET (or HEAD) handler answers 200 and has set an
 * `ETag` that the request's `If-None-Match` names, the answer becomes 304 without a body. The headers the
 * handler set (ETag, Cache-Control) stay, as RFC 9110 §15.4.5 wants. Controllers only set `ETag`.
 */
@Injectable()
export class ConditionalReadInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    if (request.method !== 'GET' && request.method !== 'HEAD') return next.handle();
    if (request.headers['if-none-match'] === undefined) return next.handle();
    const reply = http.getResponse<FastifyReply>();
    return next.handle().pipe(
      map((body: unknown) => {
        const etag = reply.getHeader('etag');
        if (reply.statusCode !== 200 || typeof etag !== 'string' || !ifNoneMatchHits(request, etag)) {
          return body;
        }
        void reply.status(304);
        return undefined;
      }),
    );
  }
}
