import { FastifyInstance } from 'fastify';
import { AppException } from '../problem/app-exception';

/** The media types whose bodies are JSON: plain JSON and JSON Merge Patch (contract, Headers). */
export const JSON_MEDIA_TYPES = ['application/json', 'application/merge-patch+json'] as const;

/**
 * Parses JSON bodies with Fastify's own parser (prototype-poisoning checks included), with two changes:
 * - malformed JSON fails as 400 VALIDATION_ERROR with violation INVALID_JSON. Fastify's own error would
 *   reach the problem filter as a bare HttpException(400): Nest's router turns every FastifyError into one
 *   (RoutesResolver.mapExternalException) and its code is lost;
 * - an empty body is no body, as if the Content-Type were absent: clients that always send
 *   `Content-Type: application/json` can call body-less actions, and a DTO route reports each required field.
 * Bodies over the limit (413) and other media types (415) fail before this parser and keep their status.
 */
export function registerJsonBodyParsers(fastify: FastifyInstance): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  for (const mediaType of JSON_MEDIA_TYPES) {
    if (fastify.hasContentTypeParser(mediaType)) fastify.removeContentTypeParser(mediaType);
    fastify.addContentTypeParser(mediaType, { parseAs: 'string' }, (request, body: string, done) => {
      if (body.length === 0) {
        done(null, undefined);
        return;
      }
      parseJson(request, body, (error, parsed) => {
        if (error) done(AppException.validation([{ field: '', code: 'INVALID_JSON' }]), undefined);
        else done(null, parsed);
      });
    });
  }
}
