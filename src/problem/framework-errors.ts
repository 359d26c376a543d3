import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { serverTrace } from '../tracing/trace-context';
import type { ProblemDetailsFilter } from './problem-details.filter';

/**
 * Fastify's `frameworkErrors` option. Errors Fastify meets before routing (a malformed percent-encoding in
 * the path, a path parameter over the length limit) skip every hook and Nest's error handler, and Fastify
 * would answer them with its own JSON; here they become Problem Details like any other error, with a trace
 * (the onRequest hook that starts one never ran). `problems` is read late: the filter exists once the Nest
 * application does, which is before the server takes requests.
 */
export function renderFrameworkErrors(problems: () => ProblemDetailsFilter | undefined) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const header = request.headers.traceparent;
    request.trace = serverTrace(Array.isArray(header) ? header[0] : header, request.method, undefined);
    void reply.header('traceparent', request.trace.traceparent);
    const filter = problems();
    if (filter) filter.respond(error, request, reply);
    else void reply.status(error.statusCode ?? 500).send();
  };
}
