import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { currentTrace } from '../tracing/trace-context';
import { AppException, AppExceptionOptions, ViolationInput } from './app-exception';
import { ErrorCode } from './error-codes';
import { resolveLanguage } from './language';
import { buildProblem, PROBLEM_CONTENT_TYPE, ProblemBody } from './problem';
import { Translator } from './translator';

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
  code?: string;
  statusCode?: number;
}

/**
 * Turns every error that reaches HTTP into a localized Problem Details body. Fastify's own errors
 * (malformed JSON, body too large, media type) are not HttpExceptions (PITFALLS 4), and guards run
 * before nestjs-i18n's context exists (PITFALLS 5): the language comes from Accept-Language here.
 */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemDetails');

  constructor(private readonly translator: Translator) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const appException = this.toAppException(exception);
    const trace = request.trace ?? currentTrace();

    if (appException.status >= 500) {
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
    }
    const body = this.render(appException, request.headers['accept-language'], trace?.traceparent);
    if (reply.sent) return;
    void reply
      .status(appException.status)
      .headers(appException.options.headers ?? {})
      .header('content-language', resolveLanguage(request.headers['accept-language']))
      // A string body keeps Fastify from choosing the content type itself (PITFALLS 3).
      .header('content-type', PROBLEM_CONTENT_TYPE)
      .send(JSON.stringify(body));
  }

  render(
    exception: AppException,
    acceptLanguage: string | string[] | undefined,
    traceId?: string,
  ): ProblemBody {
    const lang = resolveLanguage(acceptLanguage);
    const { options, code, status } = exception;
    return buildProblem({
      status,
      code,
      detail: this.translator.translate(options.detailKey ?? `errors.${code}`, lang, options.args),
      traceId,
      violations: options.violations?.map((v) => ({
        field: v.field,
        code: v.code,
        message: this.translator.translate(`validation.${v.code}`, lang, v.args),
      })),
      extensions: options.extensions,
    });
  }

  toAppException(exception: unknown): AppException {
    if (exception instanceof AppException) return exception;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const headers = status === 401 ? { 'www-authenticate': 'Bearer' } : undefined;
      return new AppException(this.codeFor(status), { headers, ...this.violationsOf(status) });
    }
    const fastifyError = exception as FastifyLikeError;
    const status = fastifyError?.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      if (fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || exception instanceof SyntaxError) {
        return AppException.validation([{ field: '', code: 'INVALID_JSON' }]);
      }
      if (fastifyError.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
        return AppException.validation([{ field: '', code: 'INVALID_JSON' }]);
      }
      return new AppException(this.codeFor(status));
    }
    return new AppException('INTERNAL_ERROR');
  }

  private codeFor(status: number): ErrorCode {
    return CODE_BY_STATUS[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'VALIDATION_ERROR');
  }

  private violationsOf(status: number): Pick<AppExceptionOptions, 'violations'> {
    // A bare 400 from a framework pipe has no field information; say so instead of inventing one.
    const violations: ViolationInput[] = status === 400 ? [{ field: '', code: 'INVALID_VALUE' }] : [];
    return violations.length > 0 ? { violations } : {};
  }
}
