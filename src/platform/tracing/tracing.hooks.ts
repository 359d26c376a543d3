import { FastifyInstance, FastifyRequest } from 'fastify';
import { runInTrace, serverTrace, TraceContext } from './trace-context';

declare module 'fastify' {
  interface FastifyRequest {
    trace: TraceContext;
  }
}

/**
 * Starts the server span of every request (or takes OpenTelemetry's, named after the route template) and
 * echoes it in `traceparent`. The async context is entered
 * in onRequest and entered again in preValidation, because body parsing runs in the socket's context
 * (the same technique as @fastify/request-context).
 */
export function registerTracing(fastify: FastifyInstance): void {
  fastify.decorateRequest('trace', undefined as unknown as TraceContext);
  fastify.addHook('onRequest', (request, reply, done) => {
    const header = request.headers.traceparent;
    request.trace = serverTrace(
      Array.isArray(header) ? header[0] : header,
      request.method,
      request.routeOptions.url,
    );
    void reply.header('traceparent', request.trace.traceparent);
    runInTrace(request.trace, done);
  });
  fastify.addHook('preValidation', (request: FastifyRequest, _reply, done) => {
    runInTrace(request.trace, done);
  });
}
