import { SignJWT } from 'jose';
import { Role } from './caller';

/** Lifetime of a token when the signer is not told otherwise. */
export const DEFAULT_TOKEN_TTL_SECONDS = 3600;

export interface AccessTokenClaims {
  /** The user id (a uuid). */
  sub: string;
  roles: Role[];
  /** Seconds until `exp` (default 3600); zero or negative gives an already expired token (tests). */
  ttlSeconds?: number;
  /** Set `iss`/`aud` when the service is configured to check them (JWT_ISSUER / JWT_AUDIENCE). */
  issuer?: string;
  audience?: string;
}

/**
 * Signs an HS256 access token with the shared secret (`JWT_SECRET`), as the service verifies it when no
 * JWKS is configured. For local runs and tests: production tokens come from the identity provider.
 */
export async function signAccessToken(secret: string, claims: AccessTokenClaims): Promise<string> {
  const ttlSeconds = claims.ttlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS;
  if (!Number.isInteger(ttlSeconds))
    throw new RangeError(`ttlSeconds must be an integer (got ${ttlSeconds})`);
  const issuedAt = Math.floor(Date.now() / 1000);
  const token = new SignJWT({ roles: claims.roles })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ttlSeconds);
  if (claims.issuer !== undefined) token.setIssuer(claims.issuer);
  if (claims.audience !== undefined) token.setAudience(claims.audience);
  return token.sign(new TextEncoder().encode(secret));
}
