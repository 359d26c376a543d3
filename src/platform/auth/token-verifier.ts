import { createRemoteJWKSet, errors, jwtVerify, JWTPayload, JWTVerifyOptions } from 'jose';
import { createSecretKey, KeyObject } from 'node:crypto';
import type { AppConfig } from '../config/app-config';
import { Caller } from './caller';
import { callerFromClaims } from './token-claims';
import { VerifiedTokenCache } from './verified-token-cache';

export type TokenVerification = { caller: Caller } | { failure: 'invalid' | 'expired' };

/** The identity provider's key set could not be fetched: the token may be fine, we cannot tell. */
export class TokenKeysUnavailableError extends Error {
  constructor(cause: unknown) {
    super(
      `the JSON Web Key Set could not be fetched: ${cause instanceof Error ? cause.message : String(cause)}`,
      {
        cause,
      },
    );
    this.name = 'TokenKeysUnavailableError';
  }
}

/** Algorithms per key source: HS256 only with the shared secret, asymmetric only with a JWKS. */
export const SECRET_ALGORITHMS = ['HS256'];
export const JWKS_ALGORITHMS = ['RS256', 'ES256'];

/** Longest a JWKS-verified token is trusted without checking its key again (jose's default key-set cache age). */
const JWKS_REVERIFY_MS = 10 * 60_000;

/** Clock skew tolerated between the token issuer and this service. */
const CLOCK_TOLERANCE_SECONDS = 5;

/** jose failures that say something about the token itself (as opposed to the key source). */
const TOKEN_ERROR_CODES = new Set<string>([
  errors.JWTClaimValidationFailed.code,
  errors.JWTInvalid.code,
  errors.JWSInvalid.code,
  errors.JWSSignatureVerificationFailed.code,
  errors.JOSEAlgNotAllowed.code,
  errors.JOSENotSupported.code,
  errors.JWKSNoMatchingKey.code,
  errors.JWKSMultipleMatchingKeys.code,
]);

type KeySource =
  { kind: 'secret'; key: KeyObject } | { kind: 'jwks'; key: ReturnType<typeof createRemoteJWKSet> };

/**
 * Verifies bearer JWTs: signature with an explicit algorithm allow-list (so `alg: none` and algorithm
 * confusion are refused), `exp` required, issuer and audience when configured, then the claims that make
 * a caller. With `JWT_JWKS_URL` only the identity provider's keys are trusted, never the shared secret.
 */
export class TokenVerifier {
  private readonly options: JWTVerifyOptions;
  private readonly verified = new VerifiedTokenCache();

  private constructor(
    private readonly source: KeySource,
    auth: Pick<AppConfig['auth'], 'issuer' | 'audience'>,
  ) {
    this.options = {
      algorithms: source.kind === 'secret' ? SECRET_ALGORITHMS : JWKS_ALGORITHMS,
      requiredClaims: ['exp'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      ...(auth.issuer !== undefined && { issuer: auth.issuer }),
      ...(auth.audience !== undefined && { audience: auth.audience }),
    };
  }

  static fromConfig(auth: AppConfig['auth']): TokenVerifier {
    const source: KeySource = auth.jwksUrl
      ? { kind: 'jwks', key: createRemoteJWKSet(new URL(auth.jwksUrl)) }
      : // A KeyObject made once: given raw bytes, jose would import the key again for every token.
        { kind: 'secret', key: createSecretKey(Buffer.from(auth.jwtSecret, 'utf8')) };
    return new TokenVerifier(source, auth);
  }

  /** Resolves the outcome for the token; rejects with TokenKeysUnavailableError when keys cannot be fetched. */
  async verify(token: string): Promise<TokenVerification> {
    const known = this.verified.get(token);
    if (known) return { caller: known };
    let claims: JWTPayload;
    try {
      claims = await this.verifySignature(token);
    } catch (error: unknown) {
      return this.classify(error);
    }
    const caller = callerFromClaims(claims);
    if (!caller) return { failure: 'invalid' };
    // `exp` is required, so it is there; the tolerance matches the one jose grants.
    // With a JWKS, a key the identity provider withdraws must stop working within jose's key-set cache
    // age, so such entries are verified again after at most that long.
    const expiresAt = ((claims.exp as number) + CLOCK_TOLERANCE_SECONDS) * 1000;
    const validUntil =
      this.source.kind === 'jwks' ? Math.min(expiresAt, Date.now() + JWKS_REVERIFY_MS) : expiresAt;
    this.verified.set(token, caller, validUntil);
    return { caller };
  }

  private async verifySignature(token: string): Promise<JWTPayload> {
    // Two calls because jose's overloads take either a key or a key-resolving function.
    const { payload } =
      this.source.kind === 'secret'
        ? await jwtVerify(token, this.source.key, this.options)
        : await jwtVerify(token, this.source.key, this.options);
    return payload;
  }

  private classify(error: unknown): TokenVerification {
    if (error instanceof errors.JWTExpired) return { failure: 'expired' };
    if (!(error instanceof errors.JOSEError)) {
      if (this.source.kind === 'jwks') throw new TokenKeysUnavailableError(error);
      throw error;
    }
    // With the shared secret every jose failure is about the token; with a JWKS, timeouts and bad
    // responses of the key endpoint are not.
    if (this.source.kind === 'secret' || TOKEN_ERROR_CODES.has(error.code)) return { failure: 'invalid' };
    throw new TokenKeysUnavailableError(error);
  }
}
