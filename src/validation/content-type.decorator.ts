import {
  applyDecorators,
  CanActivate,
  ExecutionContext,
  Injectable,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiConsumes } from '@nestjs/swagger';
import { FastifyRequest } from 'fastify';
import { AppException } from '../problem/app-exception';

export const MERGE_PATCH = 'application/merge-patch+json';
const CONTENT_TYPES = Symbol('CONTENT_TYPES');

@Injectable()
class RequireContentTypeGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const allowed = this.reflector.get<string[]>(CONTENT_TYPES, context.getHandler()) ?? [];
    const header = context.switchToHttp().getRequest<FastifyRequest>().headers['content-type'] ?? '';
    const mediaType = header.split(';')[0].trim().toLowerCase();
    if (!allowed.includes(mediaType)) throw new AppException('UNSUPPORTED_MEDIA_TYPE');
    return true;
  }
}

/**
 * Restricts a route's request body to the given media types (others are 415 UNSUPPORTED_MEDIA_TYPE), e.g.
 * PATCH accepts only `application/merge-patch+json` (DECISIONS "Orders"). Also declares them in OpenAPI.
 */
export function Consumes(...mediaTypes: string[]): MethodDecorator {
  return applyDecorators(
    SetMetadata(CONTENT_TYPES, mediaTypes),
    UseGuards(RequireContentTypeGuard),
    ApiConsumes(...mediaTypes),
  );
}
