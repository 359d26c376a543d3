import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { Sql } from '../database/sql';
import { read, write } from '../database/sql-statement';
import { Transactions, type Tx } from '../database/transactions';
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

/** Every idempotent request claims and completes a key: prepared statements. */
const CLAIM = write(
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
  'idempotency.claim',
);
const FIND = read(
  `SELECT fingerprint, state, response_status, response_headers, response_body, response_sealed
     FROM idempotency_keys
    WHERE caller_id = $1 AND idempotency_key = $2 AND expires_at > now()`,
  'idempotency.find',
);
const COMPLETE = write(
  `UPDATE idempotency_keys
      SET state = 'COMPLETED', response_status = $4, response_headers = $5::jsonb, response_body = $6,
          response_sealed = $7, completed_at = now()
    WHERE caller_id = $1 AND idempotency_key = $2 AND claim_token = $3 AND state = 'IN_PROGRESS'
   RETURNING 1 AS completed`,
  'idempotency.complete',
);
const RELEASE = write(
  `DELETE FROM idempotency_keys
    WHERE caller_id = $1 AND idempotency_key = $2 AND claim_token = $3 AND state = 'IN_PROGRESS'`,
  'idempotency.release',
);
/** `SKIP LOCKED` lets replicas purging at the same time share the work instead of waiting on each other. */
const PURGE_EXPIRED = write(
  `DELETE FROM idempotency_keys
    WHERE (caller_id, idempotency_key) IN (
      SELECT caller_id, idempotency_key FROM idempotency_keys
       WHERE expires_at <= now()
       LIMIT $1
       FOR UPDATE SKIP LOCKED)`,
);

/** What a sealed answer is bound to: it opens for the key it was stored under only. */
function sealedContext(scope: IdempotencyScope): string {
  return `idempotency:${scope.callerId}:${scope.key}`;
}

/**
 * The idempotency_keys table (migration 1763800001000). A key is claimed in a transaction of its own (the
 * claim must be visible to concurrent retries at once); its outcome is written in the request's transaction
 * when the request changed something (RequestTransaction), else in one of its own.
 */
@Injectable()
export class IdempotencyStore {
  private readonly ttlSeconds: number;

  constructor(
    private readonly sql: Sql,
    private readonly transactions: Transactions,
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
      const claimed = await this.transactions.runAlone((tx) =>
        tx.rows<{ claim_token: string }>(CLAIM, [
          scope.callerId,
          scope.key,
          fingerprint,
          token,
          this.ttlSeconds,
          IN_PROGRESS_TIMEOUT_SECONDS,
        ]),
      );
      if (claimed.length === 1) return { claim: { ...scope, token, ttlSeconds: this.ttlSeconds, sealed } };

      const record = await this.find(scope);
      if (record) return { record };
    }
    throw new Error(`idempotency key could not be claimed in ${CLAIM_ATTEMPTS} attempts`);
  }

  /** The live (unexpired) record of a key, if any. */
  async find(scope: IdempotencyScope): Promise<IdempotencyRecord | undefined> {
    const rows = await this.sql.rows<RecordRow>(FIND, [scope.callerId, scope.key]);
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
   * Records the final response in `tx`, the request's transaction (or one of its own when the request changed
   * nothing); false when the claim was taken over meanwhile (nothing written).
   */
  async complete(tx: Tx, claim: IdempotencyClaim, response: StoredResponse): Promise<boolean> {
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
    return (await tx.rows(COMPLETE, values)).length === 1;
  }

  /** Gives the key back (the request failed without a final outcome), so a retry executes afresh. */
  async release(claim: IdempotencyClaim): Promise<void> {
    await this.transactions.runAlone((tx) => tx.rowCount(RELEASE, [claim.callerId, claim.key, claim.token]));
  }

  /** Deletes expired rows in small batches (a transaction each, holding few row locks); returns how many. */
  async purgeExpired(): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.transactions.runAlone((tx) =>
        tx.rowCount(PURGE_EXPIRED, [PURGE_BATCH_SIZE]),
      );
      total += deleted;
      if (deleted < PURGE_BATCH_SIZE) return total;
    }
  }
}
