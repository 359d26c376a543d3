import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Caller, Role } from './caller';

export const PUBLIC_ROUTE = 'auth:public';
export const REQUIRED_ROLES = 'auth:roles';

/** The route needs no bearer token (on a handler or a whole controller). No caller is set on it. */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(PUBLIC_ROUTE, true);

/**
 * The caller needs any one of the roles, else 403 `ACCESS_DENIED`. On a handler it replaces the one on its
 * controller. Checks that depend on the resource (ownership) belong to the service, not here.
 */
export function Roles(...roles: Role[]): MethodDecorator & ClassDecorator {
  if (roles.length === 0) throw new Error('@Roles() needs at least one role');
  return SetMetadata(REQUIRED_ROLES, roles);
}

/** The authenticated caller of the request (a handler parameter). Only on authenticated /api routes. */
export const CurrentCaller = createParamDecorator((_data: unknown, context: ExecutionContext): Caller => {
  const { caller } = context.switchToHttp().getRequest<FastifyRequest>();
  // Reaching here without one means the decorator sits on a @Public() or non-/api route: a coding error.
  if (!caller) throw new Error('@CurrentCaller() used on a route without bearer authentication');
  return caller;
});
