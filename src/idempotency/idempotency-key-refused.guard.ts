import { CanActivate, ExecutionContext, Injectable, UseGuards } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppException } from '../problem/app-exception';
import { IDEMPOTENCY_KEY_HEADER } from './idempotency.constants';

@Injectable()
class IdempotencyKeyRefusedGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const header = context.switchToHttp().getRequest<FastifyRequest>().headers['idempotency-key'];
    const value = Array.isArray(header) ? header.join('') : (header ?? '');
    if (value.trim() !== '') {
      throw AppException.validation([{ field: IDEMPOTENCY_KEY_HEADER, code: 'INVALID_VALUE' }]);
    }
    return true;
  }
}

/**
 * The handler cannot honour `Idempotency-Key`: a request carrying one is 400 VALIDATION_ERROR (violation
 * INVALID_VALUE on `Idempotency-Key`), before anything runs, rather than executed unprotected while the
 * client believes a retry is safe. For streamed uploads, whose body is stored as it arrives: there is no
 * body to fingerprint when the key would be bound (docs/decisions.md, "Uploads refuse Idempotency-Key").
 */
export const IdempotencyKeyRefused = (): MethodDecorator => UseGuards(IdempotencyKeyRefusedGuard);
