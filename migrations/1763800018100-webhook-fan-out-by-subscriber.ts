import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook fan-out moves out of the writer's transaction into the `webhook-fan-out` event subscriber
 * (docs/decisions/0150-event-subscribers-and-a-kept-horizon.md); the statement trigger of
 * 1763800017100-webhook-fan-out goes.
 *
 * So that an endpoint still gets only the events from while it existed, was enabled and subscribed to their
 * type, every change of an endpoint's status or types is recorded in `webhook_endpoint_changes` (a trigger
 * on `webhook_endpoints`, whoever writes it: the API or the service disabling it) and numbered at commit from
 * `events_sequence` under the numbering lock, exactly as events are: endpoint changes and events share one
 * order, and the fan-out matches each event with the state of each endpoint after its last change numbered
 * before the event. A deleted endpoint's changes go with it.
 *
 * The subscriber starts where the trigger stopped: the numbering lock taken exclusively, the highest number
 * given is its position (every event up to it had its deliveries from the trigger).
 */
export class WebhookFanOutBySubscriber1763800018100 implements MigrationInterface {
  name = 'WebhookFanOutBySubscriber1763800018100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE webhook_endpoint_changes (
        change_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        webhook_endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (webhook_endpoint_id) ON DELETE CASCADE,
        sequence bigint,
        enabled boolean NOT NULL,
        event_types text[]
      )`);
    await queryRunner.query(
      'CREATE INDEX webhook_endpoint_changes_idx ON webhook_endpoint_changes (webhook_endpoint_id, sequence)',
    );
    await queryRunner.query(`
      CREATE FUNCTION webhook_endpoint_changes_number_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- The events' numbering (1763800016100): same lock, same sequence, so changes and events share one order.
        PERFORM pg_advisory_xact_lock_shared(7305416350);
        UPDATE webhook_endpoint_changes SET sequence = nextval('events_sequence')
         WHERE change_id = NEW.change_id AND sequence IS NULL;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE CONSTRAINT TRIGGER webhook_endpoint_changes_number_at_commit AFTER INSERT ON webhook_endpoint_changes
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION webhook_endpoint_changes_number_at_commit()`);
    await queryRunner.query(`
      CREATE FUNCTION webhook_endpoint_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO webhook_endpoint_changes (webhook_endpoint_id, enabled, event_types)
        VALUES (NEW.webhook_endpoint_id, NEW.status = 'ENABLED', NEW.event_types);
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER webhook_endpoint_created AFTER INSERT ON webhook_endpoints
        FOR EACH ROW EXECUTE FUNCTION webhook_endpoint_changed()`);
    await queryRunner.query(`
      CREATE TRIGGER webhook_endpoint_changed AFTER UPDATE OF status, event_types ON webhook_endpoints
        FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.event_types IS DISTINCT FROM NEW.event_types)
        EXECUTE FUNCTION webhook_endpoint_changed()`);

    await queryRunner.query('DROP TRIGGER events_webhook_fan_out ON events');
    await queryRunner.query('DROP FUNCTION webhook_fan_out()');
    await queryRunner.query('SELECT pg_advisory_xact_lock(7305416350)');
    await queryRunner.query(`
      INSERT INTO event_subscribers (name, position)
      SELECT 'webhook-fan-out', CASE WHEN is_called THEN last_value ELSE 0 END FROM events_sequence`);
    // The endpoints as they are now, numbered at this commit: after the subscriber's position.
    await queryRunner.query(`
      INSERT INTO webhook_endpoint_changes (webhook_endpoint_id, enabled, event_types)
      SELECT webhook_endpoint_id, status = 'ENABLED', event_types FROM webhook_endpoints`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("DELETE FROM event_subscribers WHERE name = 'webhook-fan-out'");
    await queryRunner.query('DROP TRIGGER webhook_endpoint_changed ON webhook_endpoints');
    await queryRunner.query('DROP TRIGGER webhook_endpoint_created ON webhook_endpoints');
    await queryRunner.query('DROP FUNCTION webhook_endpoint_changed()');
    await queryRunner.query('DROP TABLE webhook_endpoint_changes');
    await queryRunner.query('DROP FUNCTION webhook_endpoint_changes_number_at_commit()');
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
}
