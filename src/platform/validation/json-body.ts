import { FastifyInstance } from 'fastify';
import { AppException } from '../problem/app-exception';

/** The media types whose bodies are JSON: plain JSON and JSON Merge Patch. */
export const JSON_MEDIA_TYPES = ['application/json', 'application/merge-patch+json'] as const;

/** The deepest nesting of arrays and objects a body may have (docs/decisions/0059-json-depth-limit.md). */
export const MAX_JSON_DEPTH = 32;

const OPEN = 0x5b; // [
const OPEN_OBJECT = 0x7b; // {
const CLOSE = 0x5d; // ]
const CLOSE_OBJECT = 0x7d; // }
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * Whether JSON text nests arrays and objects deeper than `max`: one pass over the characters, brackets
 * inside strings ignored. Run before parsing, so no recursive walk (the parser's, class-transformer's,
 * ours) ever meets a deeper value; malformed text is left to the parser.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i += 1;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN || c === OPEN_OBJECT) {
      depth += 1;
      if (depth > max) return true;
    } else if (c === CLOSE || c === CLOSE_OBJECT) {
      depth -= 1;
    }
  }
  return false;
}

/**
 * Parses JSON bodies with Fastify's own parser (prototype-poisoning checks included), with two changes:
 * - malformed JSON fails as 400 VALIDATION_ERROR with violation INVALID_JSON. Fastify's own error would
 *   reach the problem filter as a bare HttpException(400): Nest's router turns every FastifyError into one
 *   (RoutesResolver.mapExternalException) and its code is lost;
 * - an empty body is no body, as if the Content-Type were absent: clients that always send
 *   `Content-Type: application/json` can call body-less actions;
 * - a body nested deeper than MAX_JSON_DEPTH is 400 VALIDATION_ERROR (violation MAX_DEPTH) before it is
 *   parsed: every later walk over the value is then bounded.
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
      if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
        done(
          AppException.validation([{ field: '', code: 'MAX_DEPTH', args: { max: MAX_JSON_DEPTH } }]),
          undefined,
        );
        return;
      }
      parseJson(request, body, (error, parsed) => {
        if (error) done(AppException.validation([{ field: '', code: 'INVALID_JSON' }]), undefined);
        else done(null, parsed);
      });
    });
  }
}
