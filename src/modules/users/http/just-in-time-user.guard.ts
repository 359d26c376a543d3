import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { UsersService } from '../users.service';

/**
 * Creates the caller's profile row on their first authenticated request
 * (docs/decisions/0012-user-profiles-just-in-time.md). A guard, registered after the bearer guard, so it sees
 * the caller and costs nothing once the user is known.
 */
@Injectable()
export class JustInTimeUserGuard implements CanActivate {
  constructor(private readonly users: UsersService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const caller = context.switchToHttp().getRequest<FastifyRequest>().caller;
    if (caller) await this.users.ensureUser(caller);
    return true;
  }
}
