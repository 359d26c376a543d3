import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { safeError } from '../logging/app-logger';
import { currentTrace } from '../tracing/trace-context';
import { AppException } from './app-exception';
import { isDependencyUnavailable, UNAVAILABLE_RETRY_AFTER_SECONDS } from './dependency-errors';
import { formatByteSize } from './byte-size';
import { ErrorCode } from './error-codes';
import { Language, resolveLanguage } from './language';
import { LanguageResolver } from './language-resolver';
import { PROBLEM_CONTENT_TYPE } from './problem';
import { ProblemRenderer } from './problem-renderer';

/** The code an error without one of ours gets, by its HTTP status. */
const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  403: 'ACCESS_DENIED',
  404: 'RESOURCE_NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONCURRENT_MODIFICATION',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMIT_EXCEEDED',
  503: 'SERVICE_UNAVAILABLE',
};

interface FastifyLikeError {
  statusCode?: number;
}

/**
 * The status of an error the framework raised: an HttpException (Nest's router also turns Fastify's own
 * errors, such as 413 and 415, into one), or a Fastify error thrown inside a handler (Nest hands it on as it is). Anything
 * else is a bug: undefined, rendered as 500.
 */
function frameworkStatus(exception: unknown): number | undefined {
  if (exception instanceof HttpException) return exception.getStatus();
  const status = (exception as FastifyLikeError | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

/**
 * Turns every error that reaches HTTP into a localized Problem Details body. Guards run before
 * nestjs-i18n's context exists (it is missing in filters on Fastify): the language is resolved here, by `LanguageResolver`
 * (Accept-Language, else the caller's stored preference, else ru). Where errors come from:
 * - Fastify's own errors before the handler (413, 415) reach it as bare HttpExceptions: Nest's router
 *   turns every FastifyError into one, dropping its code (so malformed JSON is mapped at its parser,
 *   json-body.ts, and errors before routing in framework-errors.ts);
 * - unknown routes come through Nest's not-found handler as a 404 HttpException; a path that exists with
 *   other methods becomes 405 with `Allow` (allowed-methods.ts);
 * - anything that is neither an AppException nor a framework error is a bug: 500, logged whole.
 */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemDetails');

  constructor(
    private readonly renderer: ProblemRenderer,
    private readonly languages: LanguageResolver,
  ) {}

  /** Waits on I/O only when the language is the caller's stored one (a request without Accept-Language). */
  async catch(exception: unknown, host: ArgumentsHost): Promise<void> {
    if (host.getType() !== 'http') throw exception;
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    this.respond(exception, request, http.getResponse<FastifyReply>(), await this.languages.resolve(request));
  }

  /**
   * Logs a server error with its trace id and answers with the problem body of `exception` in `lang`
   * (by default from Accept-Language alone: errors Fastify meets before routing have no caller yet).
   */
  respond(
    exception: unknown,
    request: FastifyRequest,
    reply: FastifyReply,
    lang: Language = resolveLanguage(request.headers['accept-language']),
  ): void {
    const appException = this.toAppException(exception, request);
    const trace = request.trace ?? currentTrace();

    if (appException.code === 'INTERNAL_ERROR' && !(exception instanceof AppException)) {
      this.logger.error(
        {
          msg: 'request failed',
          method: request.method,
          url: request.url,
          err: exception,
          traceId: trace?.traceId,
        },
        undefined,
      );
    } else if (appException.status >= 500) {
      // Raised on purpose, or a dependency is down: worth a line with the cause's code, not a stack trace.
      this.logger.warn({
        msg: 'request refused',
        code: appException.code,
        cause: exception instanceof AppException ? undefined : safeError(exception).code,
        url: request.url,
        traceId: trace?.traceId,
      });
    }
    const body = this.renderer.render(appException, lang, trace?.traceparent);
    if (reply.sent) return;
    void reply
      .status(appException.status)
      .headers(appException.options.headers ?? {})
      .header('content-language', lang)
      // A string body keeps Fastify from choosing the content type itself (it would for an object).
      .header('content-type', PROBLEM_CONTENT_TYPE)
      .send(JSON.stringify(body));
  }

  toAppException(exception: unknown, request: FastifyRequest): AppException {
    if (exception instanceof AppException) return exception;
    const status = frameworkStatus(exception);
    if (status === undefined) {
      return isDependencyUnavailable(exception)
        ? new AppException('SERVICE_UNAVAILABLE', {
            headers: { 'retry-after': UNAVAILABLE_RETRY_AFTER_SECONDS },
          })
        : new AppException('INTERNAL_ERROR');
    }
    if (status === 404) return this.notFound(request);
    if (status === 413) {
      const limit = request.routeOptions.bodyLimit ?? request.server.initialConfig.bodyLimit;
      return new AppException('PAYLOAD_TOO_LARGE', { args: { max: formatByteSize(limit ?? 0) } });
    }
    if (status === 415) {
      // Fastify has no parser for the body's type: say what the route reads (uploads declare multipart).
      const multipart = (request.routeOptions.config as { multipartForm?: boolean } | undefined)
        ?.multipartForm;
      return new AppException('UNSUPPORTED_MEDIA_TYPE', {
        args: { accepted: multipart ? 'multipart/form-data' : 'application/json' },
      });
    }
    const code = this.codeFor(status);
    const headers = status === 401 ? { 'www-authenticate': 'Bearer' } : undefined;
    // A bare 400 from the framework has no field information; say so instead of inventing one.
    const violations =
      code === 'VALIDATION_ERROR' ? [{ field: '', code: 'INVALID_VALUE' as const }] : undefined;
    return new AppException(code, { headers, violations });
  }

  /** 405 when the path has routes for other methods, else 404. */
  private notFound(request: FastifyRequest): AppException {
    const allowed = request.server.allowedMethods?.(request.url) ?? [];
    if (allowed.length === 0 || allowed.includes(request.method)) {
      return new AppException('RESOURCE_NOT_FOUND');
    }
    const allow = allowed.join(', ');
    return new AppException('METHOD_NOT_ALLOWED', { args: { allowed: allow }, headers: { allow } });
  }

  private codeFor(status: number): ErrorCode {
    return CODE_BY_STATUS[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'VALIDATION_ERROR');
  }
}
