import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The deliveries still pending move to a work queue of their own, `webhook_delivery_queue`; `webhook_deliveries`
 * keeps the ended ones (SUCCEEDED, FAILED), the history that the API lists with the queue and that retention
 * can drop by day once it is partitioned (docs/decisions/0154-webhook-delivery-queue.md). The claim, the
 * leases and the records of attempts read and write the queue only, so their cost does not grow with the
 * history nor with how it is partitioned; an attempt that ends a delivery moves it to the history in the
 * statement that records it.
 *
 * The pending rows move under a lock that blocks writers of `webhook_deliveries` for the moment the move
 * takes (they are found by the pending index); readers are not blocked. The previous release, still running
 * during a rolling deploy, keeps inserting pending deliveries (its fan-out) and making ended ones pending
 * again (its manual retry) in `webhook_deliveries`: a trigger moves those rows to the queue, so nothing it
 * makes waits unseen in the history. The trigger goes in a later release (contract).
 */
export class WebhookDeliveryQueue1763800021000 implements MigrationInterface {
  name = 'WebhookDeliveryQueue1763800021000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE webhook_delivery_queue (
        delivery_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        webhook_endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (webhook_endpoint_id) ON DELETE CASCADE,
        event_id uuid NOT NULL,
        event_type text NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        last_attempt_at timestamptz,
        last_response_status integer,
        last_error text CHECK (last_error IN ('TIMEOUT', 'CONNECTION_FAILED', 'HTTP_STATUS', 'URL_NOT_ALLOWED')),
        single_attempt boolean NOT NULL DEFAULT false,
        claimed_until timestamptz,
        claim_token uuid,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        UNIQUE (webhook_endpoint_id, event_id)
      )`);
    // What the workers claim: an endpoint's deliveries by due time; its leased ones (its in-flight count).
    await queryRunner.query(
      `CREATE INDEX webhook_delivery_queue_due_idx ON webhook_delivery_queue (webhook_endpoint_id, next_attempt_at)`,
    );
    await queryRunner.query(
      `CREATE INDEX webhook_delivery_queue_leased_idx ON webhook_delivery_queue (webhook_endpoint_id, claimed_until)
       WHERE claimed_until IS NOT NULL`,
    );
    // The API's lists and filters, as on the history.
    await queryRunner.query(
      'CREATE INDEX webhook_delivery_queue_event_idx ON webhook_delivery_queue (event_id)',
    );
    await queryRunner.query(
      'CREATE INDEX webhook_delivery_queue_created_idx ON webhook_delivery_queue (created_at DESC, delivery_id DESC)',
    );

    await queryRunner.query('LOCK TABLE webhook_deliveries IN SHARE ROW EXCLUSIVE MODE');
    await queryRunner.query(`
      WITH moved AS (
        DELETE FROM webhook_deliveries WHERE status = 'PENDING'
        RETURNING delivery_id, webhook_endpoint_id, event_id, event_type, attempts, next_attempt_at,
                  last_attempt_at, last_response_status, last_error, single_attempt, claimed_until, claim_token,
                  created_at, updated_at
      )
      INSERT INTO webhook_delivery_queue (delivery_id, webhook_endpoint_id, event_id, event_type, attempts,
                                          next_attempt_at, last_attempt_at, last_response_status, last_error,
                                          single_attempt, claimed_until, claim_token, created_at, updated_at)
      SELECT * FROM moved`);
    // Checked for every row written from now on; the rows already there were just checked by the move.
    await queryRunner.query(
      `ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_ended CHECK (status <> 'PENDING') NOT VALID`,
    );
    await queryRunner.query('DROP INDEX webhook_deliveries_leased_idx');
    await queryRunner.query('DROP INDEX webhook_deliveries_pending_idx');

    // The previous release's writes of pending deliveries (see above): an insert goes to the queue instead;
    // an ended delivery made pending again (a manual retry) moves there.
    await queryRunner.query(`
      CREATE FUNCTION webhook_deliveries_pending_to_queue() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO webhook_delivery_queue (delivery_id, webhook_endpoint_id, event_id, event_type, attempts,
                                            next_attempt_at, last_attempt_at, last_response_status, last_error,
                                            single_attempt, claimed_until, claim_token, created_at, updated_at)
        VALUES (NEW.delivery_id, NEW.webhook_endpoint_id, NEW.event_id, NEW.event_type, NEW.attempts,
                coalesce(NEW.next_attempt_at, now()), NEW.last_attempt_at, NEW.last_response_status, NEW.last_error,
                NEW.single_attempt, NEW.claimed_until, NEW.claim_token, NEW.created_at, NEW.updated_at)
        ON CONFLICT DO NOTHING;
        IF TG_OP = 'UPDATE' THEN
          DELETE FROM webhook_deliveries WHERE delivery_id = NEW.delivery_id;
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER webhook_deliveries_pending_inserted BEFORE INSERT ON webhook_deliveries
        FOR EACH ROW WHEN (NEW.status = 'PENDING') EXECUTE FUNCTION webhook_deliveries_pending_to_queue()`);
    // Before the update, so the row is not written pending (the check); the update itself is skipped.
    await queryRunner.query(`
      CREATE TRIGGER webhook_deliveries_made_pending BEFORE UPDATE ON webhook_deliveries
        FOR EACH ROW WHEN (NEW.status = 'PENDING') EXECUTE FUNCTION webhook_deliveries_pending_to_queue()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER webhook_deliveries_made_pending ON webhook_deliveries');
    await queryRunner.query('DROP TRIGGER webhook_deliveries_pending_inserted ON webhook_deliveries');
    await queryRunner.query('DROP FUNCTION webhook_deliveries_pending_to_queue()');
    await queryRunner.query('ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_ended');
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (webhook_endpoint_id, next_attempt_at)
       WHERE status = 'PENDING'`,
    );
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_leased_idx ON webhook_deliveries (webhook_endpoint_id, claimed_until)
       WHERE status = 'PENDING' AND claimed_until IS NOT NULL`,
    );
    await queryRunner.query('LOCK TABLE webhook_delivery_queue IN SHARE ROW EXCLUSIVE MODE');
    await queryRunner.query(`
      INSERT INTO webhook_deliveries (delivery_id, webhook_endpoint_id, event_id, event_type, status, attempts,
                                      next_attempt_at, last_attempt_at, last_response_status, last_error,
                                      single_attempt, claimed_until, claim_token, created_at, updated_at)
      SELECT delivery_id, webhook_endpoint_id, event_id, event_type, 'PENDING', attempts, next_attempt_at,
             last_attempt_at, last_response_status, last_error, single_attempt, claimed_until, claim_token,
             created_at, updated_at
        FROM webhook_delivery_queue`);
    await queryRunner.query('DROP TABLE webhook_delivery_queue');
  }
}
