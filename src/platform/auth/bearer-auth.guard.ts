import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { AppException } from '../problem/app-exception';
import { AuthFailure, Authenticator } from './authenticator';
import { Role } from './caller';
import { PUBLIC_ROUTE, REQUIRED_ROLES } from './decorators';
import { isApiRoute } from '../http/api-route';

/**
 * RFC 6750 §3 challenges: a bare `Bearer` when the request carried no bearer token, `invalid_token` when
 * it carried one that failed (with a description a client can log for the expired case).
 */
const CHALLENGES: Record<AuthFailure, string> = {
  missing: 'Bearer',
  invalid: 'Bearer error="invalid_token"',
  expired: 'Bearer error="invalid_token", error_description="The access token expired"',
};

const DETAIL_KEYS: Record<AuthFailure, string> = {
  missing: 'errors.UNAUTHORIZED',
  invalid: 'errors.UNAUTHORIZED_INVALID',
  expired: 'errors.UNAUTHORIZED_EXPIRED',
};

export function unauthorized(failure: AuthFailure): AppException {
  return new AppException('UNAUTHORIZED', {
    detailKey: DETAIL_KEYS[failure],
    headers: { 'www-authenticate': CHALLENGES[failure] },
  });
}

/**
 * Business routes (under /api) need a bearer token unless marked `@Public()`; operational endpoints
 * (/health, /ready, /info, /metrics, /docs) are outside /api and never authenticated. Sets
 * `request.caller`, then enforces `@Roles()`.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: Authenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!isApiRoute(request)) return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean | undefined>(PUBLIC_ROUTE, targets)) return true;

    const outcome = await this.authenticator.authenticate(request);
    if ('failure' in outcome) throw unauthorized(outcome.failure);
    request.caller = outcome.caller;

    const required = this.reflector.getAllAndOverride<Role[] | undefined>(REQUIRED_ROLES, targets);
    if (required && !required.some((role) => outcome.caller.roles.includes(role))) {
      throw new AppException('ACCESS_DENIED');
    }
    return true;
  }
}
