import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An event's webhook deliveries, created by the statement that records the event, in its transaction
 * (docs/decisions/0121-webhook-fan-out-in-the-event-transaction.md): one delivery per ENABLED endpoint
 * subscribed to its type as the transaction sees the endpoints. A statement-level trigger over the inserted
 * rows, so every writer of events (an order statement's CTE, a task's end) fans out the same way and none can
 * leave it out; one INSERT … SELECT per statement, however many events it wrote.
 */
export class WebhookFanOut1763800017100 implements MigrationInterface {
  name = 'WebhookFanOut1763800017100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION webhook_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO webhook_deliveries (webhook_endpoint_id, event_id, event_type, next_attempt_at)
        SELECT w.webhook_endpoint_id, e.event_id, e.type, now()
          FROM recorded e
          JOIN webhook_endpoints w
            ON w.status = 'ENABLED' AND (w.event_types IS NULL OR e.type = ANY (w.event_types));
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER events_webhook_fan_out AFTER INSERT ON events
        REFERENCING NEW TABLE AS recorded FOR EACH STATEMENT EXECUTE FUNCTION webhook_fan_out()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER events_webhook_fan_out ON events');
    await queryRunner.query('DROP FUNCTION webhook_fan_out()');
  }
}
