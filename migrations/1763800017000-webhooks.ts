import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook endpoints and their deliveries (docs/events.md, docs/decisions/0120-webhook-delivery.md).
 *
 * A delivery row is the record of one event for one endpoint: PostgreSQL, not the queue, says what is still
 * to be sent, so a Redis outage or a killed worker loses nothing. A worker leases the rows it sends
 * (`claimed_until`); a lease that runs out (the worker died) makes the row due again.
 */
export class Webhooks1763800017000 implements MigrationInterface {
  name = 'Webhooks1763800017000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE webhook_endpoints (
        webhook_endpoint_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        url text NOT NULL CHECK (char_length(url) BETWEEN 1 AND 2048),
        event_types text[] CHECK (cardinality(event_types) >= 1),
        description text CHECK (char_length(description) <= 500),
        status text NOT NULL DEFAULT 'ENABLED' CHECK (status IN ('ENABLED', 'DISABLED')),
        disabled_reason text CHECK (disabled_reason IN ('MANUAL', 'CONSECUTIVE_FAILURES', 'GONE')),
        secret_sealed text NOT NULL,
        previous_secret_sealed text,
        previous_secret_expires_at timestamptz,
        consecutive_failures integer NOT NULL DEFAULT 0,
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CHECK ((status = 'DISABLED') = (disabled_reason IS NOT NULL))
      )`);
    await queryRunner.query(
      'CREATE INDEX webhook_endpoints_created_idx ON webhook_endpoints (created_at DESC, webhook_endpoint_id DESC)',
    );
    await queryRunner.query(`
      CREATE TABLE webhook_deliveries (
        delivery_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        webhook_endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (webhook_endpoint_id) ON DELETE CASCADE,
        event_id uuid NOT NULL,
        event_type text NOT NULL,
        status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        last_attempt_at timestamptz,
        last_response_status integer,
        last_error text CHECK (last_error IN ('TIMEOUT', 'CONNECTION_FAILED', 'HTTP_STATUS', 'URL_NOT_ALLOWED')),
        single_attempt boolean NOT NULL DEFAULT false,
        claimed_until timestamptz,
        claim_token uuid,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        UNIQUE (webhook_endpoint_id, event_id),
        CHECK ((status = 'PENDING') = (next_attempt_at IS NOT NULL))
      )`);
    // What the workers claim: an endpoint's pending deliveries by due time (also its in-flight count).
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (webhook_endpoint_id, next_attempt_at)
       WHERE status = 'PENDING'`,
    );
    await queryRunner.query('CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id)');
    await queryRunner.query(
      'CREATE INDEX webhook_deliveries_created_idx ON webhook_deliveries (created_at DESC, delivery_id DESC)',
    );
    // A stored answer that carries a secret (an endpoint's create or rotate) is kept sealed.
    await queryRunner.query(
      'ALTER TABLE idempotency_keys ADD COLUMN response_sealed boolean NOT NULL DEFAULT false',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE idempotency_keys DROP COLUMN response_sealed');
    await queryRunner.query('DROP TABLE webhook_deliveries');
    await queryRunner.query('DROP TABLE webhook_endpoints');
  }
}
