/** What the `Authorization` header holds, from the point of view of bearer authentication. */
export type BearerCredentials = { token: string } | { failure: 'missing' | 'invalid' };

/** RFC 6750 §2.1 `b6token`: base64url/base64 characters with optional trailing `=`. */
const B64_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Reads `Authorization: Bearer <token>`. The scheme word is mandatory (contract, Authentication) and
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
  return B64_TOKEN.test(credentials) ? { token: credentials } : { failure: 'invalid' };
}
