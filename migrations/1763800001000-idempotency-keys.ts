import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency keys (docs/decisions/0021-idempotency.md): one row per caller and key. The row is the lock as
 * well as the stored outcome: inserting it claims the key (IN_PROGRESS), the first final response completes
 * it (COMPLETED with status, selected headers and body). `claim_token` tells the owner of a claim from a
 * process that took a stale one over. Rows past `expires_at` are ignored and purged periodically.
 */
export class IdempotencyKeys1763800001000 implements MigrationInterface {
  name = 'IdempotencyKeys1763800001000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE idempotency_keys (
        caller_id text NOT NULL CHECK (char_length(caller_id) BETWEEN 1 AND 200),
        idempotency_key text NOT NULL CHECK (char_length(idempotency_key) BETWEEN 1 AND 255),
        fingerprint char(64) NOT NULL,
        state text NOT NULL CHECK (state IN ('IN_PROGRESS', 'COMPLETED')),
        claim_token uuid NOT NULL,
        response_status smallint CHECK (response_status BETWEEN 100 AND 499),
        response_headers jsonb,
        response_body text,
        created_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (caller_id, idempotency_key),
        CHECK ((state = 'COMPLETED') = (response_status IS NOT NULL AND completed_at IS NOT NULL))
      )`);
    await queryRunner.query('CREATE INDEX idempotency_keys_expires_at_idx ON idempotency_keys (expires_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE idempotency_keys');
  }
}
