import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { API_ENDPOINT, type ApiEndpointOptions } from '../openapi/api-endpoint.decorator';
import { AppException } from '../problem/app-exception';
import { Clock } from './clock';
import { deprecationHeaders, isPastSunset, successorLink, successorPath } from './deprecation';

/**
 * The runtime half of `@ApiEndpoint({ deprecated })`. The first global guard (VersioningModule is the
 * first HTTP mechanism), so that:
 * - while the endpoint lives, `Deprecation`, `Sunset` and `Link` are on the reply before anything else can
 *   answer, and every response of the endpoint carries them: 2xx, and the 401, 403, 404, 429 and 400
 *   that later guards, pipes and the handler may give (the problem filter keeps headers already set);
 * - from the sunset on (the clock decides per request), it answers 410 `ENDPOINT_REMOVED` naming the
 *   successor, with its `Link`, before authentication and rate limiting, as an unknown route answers 404.
 * Every other route costs one metadata lookup.
 */
@Injectable()
export class DeprecationGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const endpoint = this.reflector.get<ApiEndpointOptions | undefined>(API_ENDPOINT, context.getHandler());
    const deprecation = endpoint?.deprecated;
    if (!deprecation) return true;
    const http = context.switchToHttp();
    const params = http.getRequest<FastifyRequest>().params as Record<string, unknown>;
    const successor = successorPath(deprecation.successor, params ?? {});
    if (isPastSunset(deprecation, this.config, this.clock.now())) {
      throw new AppException('ENDPOINT_REMOVED', {
        args: { successor },
        headers: { link: successorLink(successor) },
      });
    }
    void http
      .getResponse<FastifyReply>()
      .headers(deprecationHeaders(successor, deprecation.sunset(this.config)));
    return true;
  }
}
