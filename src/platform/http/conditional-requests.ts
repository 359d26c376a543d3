import type { FastifyRequest } from 'fastify';
import { AppException } from '../problem/app-exception';

/**
 * Conditional requests (RFC 9110 §13) as this API uses them: `ETag` carries the version of a resource,
 * `If-None-Match` on a read answers 304 while it is current, `If-Match` on a write must name the current
 * version, else 409 `CONCURRENT_MODIFICATION` (the API answers no 412).
 */

/** One member of an entity-tag list; `opaque` keeps its quotes, as on the wire. */
export interface EntityTag {
  weak: boolean;
  opaque: string;
}

/** `[W/]"<etagc>*"` followed by a list separator or the end (RFC 9110 §8.8.3, §5.6.1 list rule). */
const LIST_MEMBER = /[\t ]*(?:(W\/)?("[\x21\x23-\x7e\x80-\xff]*"))?[\t ]*(?:,|$)/y;
const OPAQUE_CHARACTERS = /^[\x21\x23-\x7e]+$/;
/** Longest ETag the service sends, quotes included (declared in the OpenAPI document). */
export const MAX_ENTITY_TAG_LENGTH = 64;

/**
 * The strong ETag of version `version` of the resource `id`, quoted: `"<id>.v<version>"`. The id is part
 * of it so that a tag never matches another resource with the same version (e.g. behind `/orders/latest`).
 */
export function entityTag(id: string, version: number): string {
  if (!OPAQUE_CHARACTERS.test(id)) throw new Error(`an entity id cannot be part of an ETag: ${id}`);
  if (!Number.isSafeInteger(version) || version < 0) throw new Error(`not an entity version: ${version}`);
  const tag = `"${id}.v${version}"`;
  if (tag.length > MAX_ENTITY_TAG_LENGTH) throw new Error(`an entity tag is longer than it may be: ${tag}`);
  return tag;
}

/** Parses an entity-tag list (`If-Match`, `If-None-Match` without `*`); undefined when it is malformed. */
export function parseEntityTags(header: string): EntityTag[] | undefined {
  const tags: EntityTag[] = [];
  let index = 0;
  while (index < header.length) {
    LIST_MEMBER.lastIndex = index;
    const match = LIST_MEMBER.exec(header);
    if (!match || match[0].length === 0) return undefined;
    if (match[2] !== undefined) tags.push({ weak: match[1] !== undefined, opaque: match[2] });
    index = LIST_MEMBER.lastIndex;
  }
  return tags;
}

function ownTag(etag: string): EntityTag {
  const [tag, ...rest] = parseEntityTags(etag) ?? [];
  if (!tag || rest.length > 0) throw new Error(`not an entity tag: ${etag}`);
  return tag;
}

function header(request: FastifyRequest, name: 'if-match' | 'if-none-match'): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * True when the request's `If-None-Match` names `etag` (or is `*`): the client's copy is current and a
 * read answers 304 without a body. Weak comparison (RFC 9110 §13.1.2), so `W/"x"` matches `"x"`; a
 * malformed header matches nothing and the full response is sent.
 */
export function ifNoneMatchHits(request: FastifyRequest, etag: string): boolean {
  const value = header(request, 'if-none-match');
  if (value === undefined) return false;
  if (value.trim() === '*') return true;
  const current = ownTag(etag);
  return (parseEntityTags(value) ?? []).some((tag) => tag.opaque === current.opaque);
}

/**
 * The versions of resource `id` that the request's `If-Match` accepts, for the service to compare with the
 * version it reads with the row locked (so the check and the write see the same version):
 * - undefined: no precondition (no header; or `*`, "the resource exists", which it does once found);
 * - otherwise the versions named by strong tags in this resource's form `"<id>.v<version>"` (strong
 *   comparison, RFC 9110 §13.1.1), possibly none: no version satisfies that, so the write is 409
 *   `CONCURRENT_MODIFICATION`.
 * A header that is no entity-tag list at all is 400 `VALIDATION_ERROR` on the field `If-Match`.
 */
export function ifMatchVersions(request: FastifyRequest, id: string): readonly number[] | undefined {
  const value = header(request, 'if-match');
  if (value === undefined || value.trim() === '*') return undefined;
  const tags = parseEntityTags(value);
  if (tags === undefined) {
    throw AppException.validation([
      { field: 'If-Match', code: 'INVALID_FORMAT', args: { format: '"<entity-tag>"' } },
    ]);
  }
  const prefix = `"${id}.v`;
  return tags.flatMap((tag) => {
    if (tag.weak || !tag.opaque.startsWith(prefix)) return [];
    const version = tag.opaque.slice(prefix.length, -1);
    // Exactly as entityTag() prints it: no sign, no leading zeros.
    return /^(0|[1-9]\d{0,14})$/.test(version) ? [Number(version)] : [];
  });
}
