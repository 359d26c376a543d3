import type { FastifyInstance } from 'fastify';
import { isApiRoute } from './api-route';
import { toJsonOutput } from './json-output';

/**
 * Applies the JSON output rules (`toJsonOutput`) to every successful business response, so controllers and
 * views may hand over `Date`s and leave absent fields `undefined`/`null`. A Fastify `preSerialization` hook
 * rather than a Nest interceptor: it runs once per response with no rxjs pipeline around the handler
 * (docs/decisions/0023-json-output-rules.md). Problem bodies and idempotent replays are strings and never
 * pass here.
 */
export function registerJsonOutput(fastify: FastifyInstance): void {
  fastify.addHook('preSerialization', (request, reply, payload, done) => {
    done(null, reply.statusCode < 300 && isApiRoute(request) ? toJsonOutput(payload) : payload);
  });
}
