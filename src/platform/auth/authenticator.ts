import { Injectable, Logger } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppException } from '../problem/app-exception';
import { readBearerCredentials } from './bearer-credentials';
import { Caller } from './caller';
import { TokenKeysUnavailableError, TokenVerifier } from './token-verifier';

export type AuthFailure = 'missing' | 'invalid' | 'expired';
export type AuthOutcome = { caller: Caller } | { failure: AuthFailure };

/** Seconds a client should wait before retrying when the identity provider's keys are unreachable. */
const KEYS_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * Who sent a request, from its bearer token. Memoized per request: the rate limiter (which runs first and
 * keys clients by `sub`) and the auth guard both ask, and the token is verified once.
 */
@Injectable()
export class Authenticator {
  private readonly logger = new Logger('Authenticator');
  private readonly outcomes = new WeakMap<FastifyRequest, Promise<AuthOutcome>>();

  constructor(private readonly verifier: TokenVerifier) {}

  /**
   * Resolves to the caller or the reason there is none; never rejects for a bad token. Rejects with a 503
   * `SERVICE_UNAVAILABLE` AppException when the identity provider's key set cannot be fetched, because the
   * token may well be valid and a 401 would tell the client to drop it.
   */
  authenticate(request: FastifyRequest): Promise<AuthOutcome> {
    let outcome = this.outcomes.get(request);
    if (!outcome) {
      outcome = this.resolve(request.headers.authorization);
      this.outcomes.set(request, outcome);
    }
    return outcome;
  }

  private async resolve(authorization: string | undefined): Promise<AuthOutcome> {
    const credentials = readBearerCredentials(authorization);
    if ('failure' in credentials) return credentials;
    try {
      return await this.verifier.verify(credentials.token);
    } catch (error: unknown) {
      if (!(error instanceof TokenKeysUnavailableError)) throw error;
      this.logger.warn(error.message);
      throw new AppException('SERVICE_UNAVAILABLE', {
        detailKey: 'errors.SERVICE_UNAVAILABLE_TOKEN_KEYS',
        headers: { 'retry-after': String(KEYS_UNAVAILABLE_RETRY_AFTER_SECONDS) },
      });
    }
  }
}
