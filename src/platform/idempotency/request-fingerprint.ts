import { createHash } from 'node:crypto';
import { AppException } from '../problem/app-exception';
import { IDEMPOTENCY_KEY_HEADER } from './idempotency.constants';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The `Idempotency-Key` of a request, normalized to lower case (a uuid is case-insensitive), or undefined
 * when the request has none and the route does not require one. A present key must be a uuid on every
 * route; otherwise 400 `VALIDATION_ERROR` on the field `Idempotency-Key`.
 */
export function idempotencyKeyOf(
  header: string | string[] | undefined,
  required: boolean,
): string | undefined {
  // Node joins repeated headers with ", ": two keys are no uuid and fail below.
  const value = Array.isArray(header) ? header.join(', ') : header;
  if (value === undefined || value.trim() === '') {
    if (!required) return undefined;
    throw AppException.validation([{ field: IDEMPOTENCY_KEY_HEADER, code: 'REQUIRED' }]);
  }
  const key = value.trim();
  if (!UUID.test(key)) {
    throw AppException.validation([
      { field: IDEMPOTENCY_KEY_HEADER, code: 'INVALID_FORMAT', args: { format: 'uuid' } },
    ]);
  }
  return key.toLowerCase();
}

/**
 * JSON with object keys sorted at every depth and no whitespace, so bodies that differ only in key order
 * or formatting are the same request. Array order is significant. No body is the empty string.
 */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return '';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((name) => record[name] !== undefined)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson(record[name])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * What makes two requests "the same" for a key: sha256 (hex) of the method, the path with its query as
 * sent, and the canonical JSON body. The concrete path, not the route pattern: one key on two different
 * orders is two different requests.
 */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()}\n${url}\n${canonicalJson(body)}`)
    .digest('hex');
}
