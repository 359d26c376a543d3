import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import type { EntityManager } from 'typeorm';
import { prepared, PooledStatements } from '../database/pooled-statements';
import { SecretCipher } from '../encryption/secret-cipher';

/**
 * A claim still IN_PROGRESS after this long belongs to a request that will never finish (its process
 * crashed); a retry with the same request takes it over. Far above any handler's run time here.
 */
export const IN_PROGRESS_TIMEOUT_SECONDS = 60;
/** Rows deleted per statement by the purge, so it never holds many row locks at once. */
const PURGE_BATCH_SIZE = 1_000;
/** A claim that vanished between the upsert and the read (its owner released it): claim again. */
const CLAIM_ATTEMPTS = 3;

/** Whose key: the token's `sub`, or `anonymous:<ip>` on public routes. */
export interface IdempotencyScope {
  callerId: string;
  key: string;
}

/** The right to execute the request and record its outcome; `token` proves it was not taken over. */
export interface IdempotencyClaim extends IdempotencyScope {
  token: string;
  /** How long the key's record lives (IDEMPOTENCY_TTL_SECONDS). */
  ttlSeconds: number;
  /** The answer carries a secret: its body is stored sealed (`@Idempotent({ sealed: true })`). */
  sealed: boolean;
}

/** A final response as it was sent. Header names are lower case. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: string | null;
}

export type IdempotencyRecord =
  | { state: 'IN_PROGRESS'; fingerprint: string }
  | { state: 'COMPLETED'; fingerprint: string; response: StoredResponse };

interface RecordRow {
  fingerprint: string;
  state: 'IN_PROGRESS' | 'COMPLETED';
  response_status: number | null;
  response_headers: Record<string, string | string[]> | null;
  response_body: string | null;
  response_sealed: boolean;
}

/** Every idempotent request claims and completes a key: prepared statements on the pool. */
const CLAIM = prepared(
  'idempotency.claim',
  `INSERT INTO idempotency_keys AS k
     (caller_id, idempotency_key, fingerprint, state, claim_token, created_at, expires_at)
   VALUES ($1, $2, $3, 'IN_PROGRESS', $4, now(), now() + make_interval(secs => $5))
   ON CONFLICT (caller_id, idempotency_key) DO UPDATE
     SET fingerprint = EXCLUDED.fingerprint, state = 'IN_PROGRESS', claim_token = EXCLUDED.claim_token,
         response_status = NULL, response_headers = NULL, response_body = NULL, response_sealed = false,
         created_at = EXCLUDED.created_at, completed_at = NULL, expires_at = EXCLUDED.expires_at
     WHERE k.expires_at <= now()
        OR (k.state = 'IN_PROGRESS' AND k.fingerprint = EXCLUDED.fingerprint
            AND k.created_at <= now() - make_interval(secs => $6))
   RETURNING claim_token`,
);
const FIND = prepared(
  'idempotency.find',
  `SELECT fingerprint, state, response_status, response_headers, response_body, response_sealed
     FROM idempotency_keys
    WHERE caller_id = $1 AND idempotency_key = $2 AND expires_at > now()`,
);
const COMPLETE = prepared(
  'idempotency.complete',
  `UPDATE idempotency_keys
      SET state = 'COMPLETED', response_status = $4, response_headers = $5::jsonb, response_body = $6,
          response_sealed = $7, completed_at = now()
    WHERE caller_id = $1 AND idempotency_key = $2 AND claim_token = $3 AND state = 'IN_PROGRESS'
   RETURNING 1 AS completed`,
);
const RELEASE = prepared(
  'idempotency.release',
  `DELETE FROM idempotency_keys
    WHERE caller_id = $1 AND idempotency_key = $2 AND claim_token = $3 AND state = 'IN_PROGRESS'`,
);

/** What a sealed answer is bound to: it opens for the key it was stored under only. */
function sealedContext(scope: IdempotencyScope): string {
  return `idempotency:${scope.callerId}:${scope.key}`;
}

/**
 * The idempotency_keys table (migration 1763800001000). A key is claimed by a statement of its own (the
 * claim must be visible to concurrent retries at once); its outcome is written in the request's transaction
 * when the request changed something (IdempotencyRecorder), else by a statement of its own.
 */
@Injectable()
export class IdempotencyStore {
  private readonly ttlSeconds: number;

  constructor(
    private readonly pooled: PooledStatements,
    private readonly cipher: SecretCipher,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.ttlSeconds = config.idempotency.ttlSeconds;
  }

  /**
   * Claims the key for this request, atomically: a new key is inserted IN_PROGRESS; an expired row, or a
   * stale IN_PROGRESS row of the same request, is taken over in the same statement (the row lock of
   * `ON CONFLICT DO UPDATE` lets only one of several concurrent claimers win). Otherwise the existing
   * record is returned for the caller to replay or refuse.
   */
  async claim(
    scope: IdempotencyScope,
    fingerprint: string,
    sealed = false,
  ): Promise<{ claim: IdempotencyClaim } | { record: IdempotencyRecord }> {
    for (let attempt = 1; attempt <= CLAIM_ATTEMPTS; attempt++) {
      const token = randomUUID();
      const claimed = await this.pooled.rows<{ claim_token: string }>(CLAIM, [
        scope.callerId,
        scope.key,
        fingerprint,
        token,
        this.ttlSeconds,
        IN_PROGRESS_TIMEOUT_SECONDS,
      ]);
      if (claimed.length === 1) return { claim: { ...scope, token, ttlSeconds: this.ttlSeconds, sealed } };

      const record = await this.find(scope);
      if (record) return { record };
    }
    throw new Error(`idempotency key could not be claimed in ${CLAIM_ATTEMPTS} attempts`);
  }

  /** The live (unexpired) record of a key, if any. */
  async find(scope: IdempotencyScope): Promise<IdempotencyRecord | undefined> {
    const rows = await this.pooled.rows<RecordRow>(FIND, [scope.callerId, scope.key]);
    const row = rows[0];
    if (!row) return undefined;
    if (row.state === 'IN_PROGRESS' || row.response_status === null) {
      return { state: 'IN_PROGRESS', fingerprint: row.fingerprint };
    }
    return {
      state: 'COMPLETED',
      fingerprint: row.fingerprint,
      response: {
        status: row.response_status,
        headers: row.response_headers ?? {},
        body:
          row.response_sealed && row.response_body !== null
            ? this.cipher.open(row.response_body, sealedContext(scope))
            : row.response_body,
      },
    };
  }

  /**
   * Records the final response, in `db`'s transaction when given; false when the claim was taken over
   * meanwhile (nothing written).
   */
  async complete(claim: IdempotencyClaim, response: StoredResponse, db?: EntityManager): Promise<boolean> {
    const values = [
      claim.callerId,
      claim.key,
      claim.token,
      response.status,
      JSON.stringify(response.headers),
      claim.sealed && response.body !== null
        ? this.cipher.seal(response.body, sealedContext(claim))
        : response.body,
      claim.sealed && response.body !== null,
    ];
    const completed = db
      ? await this.pooled.rowsIn(db, COMPLETE, values)
      : await this.pooled.rows(COMPLETE, values);
    return completed.length === 1;
  }

  /** Gives the key back (the request failed without a final outcome), so a retry executes afresh. */
  async release(claim: IdempotencyClaim): Promise<void> {
    await this.pooled.rows(RELEASE, [claim.callerId, claim.key, claim.token]);
  }

  /**
   * Deletes expired rows in small batches; returns how many. `SKIP LOCKED` lets replicas purging at the
   * same time share the work instead of waiting on each other.
   */
  async purgeExpired(): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.pooled.rowCount(
        `DELETE FROM idempotency_keys
          WHERE (caller_id, idempotency_key) IN (
            SELECT caller_id, idempotency_key FROM idempotency_keys
             WHERE expires_at <= now()
             LIMIT $1
             FOR UPDATE SKIP LOCKED)`,
        [PURGE_BATCH_SIZE],
      );
      total += deleted;
      if (deleted < PURGE_BATCH_SIZE) return total;
    }
  }
}
