import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiConsumes } from '@nestjs/swagger';
import type { IncomingHttpHeaders } from 'node:http';
import { AppException } from '../problem/app-exception';

export const MERGE_PATCH = 'application/merge-patch+json';
/** The body media types of the service: JSON, unless a route declares others with `@Consumes()`. */
export const JSON_MEDIA_TYPE = 'application/json';
export const CONTENT_TYPES = 'validation:content-types';

/**
 * Restricts a route's request body to the given media types (others are 415 UNSUPPORTED_MEDIA_TYPE, naming
 * the accepted ones), e.g. PATCH accepts only `application/merge-patch+json`. Checked
 * by the request validation guard before anything else of the request's input, and declared in OpenAPI.
 */
export function Consumes(...mediaTypes: string[]): MethodDecorator {
  return applyDecorators(SetMetadata(CONTENT_TYPES, mediaTypes), ApiConsumes(...mediaTypes));
}

/** 415 naming what a route accepts. */
export function unsupportedMediaType(accepted: readonly string[]): AppException {
  return new AppException('UNSUPPORTED_MEDIA_TYPE', { args: { accepted: accepted.join(', ') } });
}

/** The request's media type (without parameters, lower case) is one of `allowed`; else 415. */
export function assertMediaType(headers: IncomingHttpHeaders, allowed: readonly string[]): void {
  const mediaType = (headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (!allowed.includes(mediaType)) throw unsupportedMediaType(allowed);
}
