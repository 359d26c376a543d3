import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { FastifyRequest } from 'fastify';
import { from, Observable, switchMap } from 'rxjs';
import { UsersService } from './users.service';

/** Creates the caller's profile row on their first authenticated request (DECISIONS "Running it"). */
@Injectable()
export class JustInTimeUserInterceptor implements NestInterceptor {
  constructor(private readonly users: UsersService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const caller = context.switchToHttp().getRequest<FastifyRequest>().caller;
    if (!caller) return next.handle();
    return from(this.users.ensureUser(caller)).pipe(switchMap(() => next.handle()));
  }
}
