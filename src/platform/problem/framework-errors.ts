import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES as STATUS_TEXT } from 'node:http';
import type { Socket } from 'node:net';
import { serverTrace, startSpan } from '../tracing/trace-context';
import { AppException } from './app-exception';
import { DEFAULT_LANGUAGE } from './language';
import { PROBLEM_CONTENT_TYPE } from './problem';
import type { ProblemDetailsFilter } from './problem-details.filter';
import type { ProblemRenderer } from './problem-renderer';

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

/** Node's HTTP parser errors and the problem each one is. */
const CLIENT_ERRORS: Record<string, 'HEADERS_TOO_LARGE' | 'REQUEST_TIMEOUT'> = {
  HPE_HEADER_OVERFLOW: 'HEADERS_TOO_LARGE',
  ERR_HTTP_REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
};

/**
 * Fastify's `clientErrorHandler` option. Node's HTTP parser answers some requests before any route or hook
 * sees them (headers or request line too large, a request that is not HTTP, a request that never arrives
 * whole) and Fastify would answer with its own JSON; here they are Problem Details too, with a registered
 * code: 431 HEADERS_TOO_LARGE, 408 REQUEST_TIMEOUT, 400 BAD_REQUEST. The headers were never parsed, so the
 * text is in the default language, and a new trace starts. The connection is closed after the answer: the
 * parser cannot tell where the next request would begin.
 */
export function renderClientErrors(
  problems: () => ProblemRenderer | undefined,
  headers: Readonly<Record<string, string>> = {},
) {
  const extraHeaders = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return (error: Error & { code?: string }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const renderer = problems();
    if (renderer && socket.writable) {
      const exception = new AppException(CLIENT_ERRORS[error.code ?? ''] ?? 'BAD_REQUEST');
      const trace = startSpan(undefined);
      const body = JSON.stringify(renderer.render(exception, DEFAULT_LANGUAGE, trace.traceparent));
      socket.write(
        `HTTP/1.1 ${exception.status} ${STATUS_TEXT[exception.status] ?? 'Error'}\r\n` +
          `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Language: ${DEFAULT_LANGUAGE}\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\ntraceparent: ${trace.traceparent}\r\n` +
          `${extraHeaders}Connection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy(error);
  };
}
