/** What the `Authorization` header holds, from the point of view of bearer authentication. */
export type BearerCredentials = { token: string } | { failure: 'missing' | 'invalid' };

/**
 * The bearer tokens of this service are JWS compact serializations: three unpadded base64url parts. Only
 * that form (and a sane length) reaches the verifier: jose decodes leniently (padding, `+`/`/`), so other
 * spellings of one valid token would each verify and each take a place in the verified-token cache.
 */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const MAX_TOKEN_LENGTH = 4096;

/**
 * Reads `Authorization: Bearer <token>`. The scheme word is mandatory and
 * compared case-insensitively (RFC 9110 §11.1). No header, another scheme (`Basic`), a bare token without
 * the scheme word, or `Bearer` with nothing after it count as no bearer credentials at all (`missing`);
 * a `Bearer` value that is not one well-formed token is a token that was given and is `invalid`.
 */
export function readBearerCredentials(authorization: string | undefined): BearerCredentials {
  const value = authorization?.trim() ?? '';
  const [scheme = '', ...rest] = value.split(' ');
  if (scheme.toLowerCase() !== 'bearer') return { failure: 'missing' };
  const credentials = rest.join(' ').trim();
  if (credentials === '') return { failure: 'missing' };
  return credentials.length <= MAX_TOKEN_LENGTH && COMPACT_JWS.test(credentials)
    ? { token: credentials }
    : { failure: 'invalid' };
}
