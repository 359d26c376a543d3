import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The event outbox (docs/events.md, docs/decisions/0110-events-numbered-at-commit.md). A change writes its
 * event in its own transaction with `sequence` NULL; a deferred constraint trigger numbers the
 * transaction's events at commit, under a transaction-scoped advisory lock held until the commit is
 * visible, so numbers become visible in the order they were given and the feed (which serves only numbered
 * events) never skips one a slower transaction commits later. Nothing is kept in the session: it works
 * behind a transaction pooler.
 *
 * The numbering lock's key, 7305416350, is fixed (no other lock of the service uses it; the feed-lag metric
 * looks for waiters on it: EVENT_NUMBERING_LOCK in src/modules/events/persistence/).
 * `event_retention.purged_through` is the highest sequence retention has deleted: a feed cursor before it has
 * lost events.
 */
export class Events1763800016000 implements MigrationInterface {
  name = 'Events1763800016000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE SEQUENCE events_sequence AS bigint');
    await queryRunner.query(`
      CREATE TABLE events (
        event_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        sequence bigint,
        type text NOT NULL,
        occurred_at timestamptz NOT NULL DEFAULT now(),
        order_id uuid,
        task_id uuid,
        customer_id uuid,
        actor_id uuid,
        data jsonb NOT NULL,
        CONSTRAINT events_one_subject CHECK ((order_id IS NULL) <> (task_id IS NULL))
      )`);
    // Only numbered rows are ever read by others, so every read index leaves the unnumbered ones out: an
    // insert writes the primary key only, the numbering at commit the rest.
    await queryRunner.query(
      'CREATE UNIQUE INDEX events_sequence_idx ON events (sequence) WHERE sequence IS NOT NULL',
    );
    await queryRunner.query(
      'CREATE INDEX events_order_idx ON events (order_id, sequence) WHERE order_id IS NOT NULL AND sequence IS NOT NULL',
    );
    await queryRunner.query(
      'CREATE INDEX events_customer_idx ON events (customer_id, sequence) WHERE customer_id IS NOT NULL AND sequence IS NOT NULL',
    );
    await queryRunner.query(
      'CREATE INDEX events_type_idx ON events (type, sequence) WHERE sequence IS NOT NULL',
    );
    await queryRunner.query(`
      CREATE TABLE event_retention (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        purged_through bigint NOT NULL DEFAULT 0
      )`);
    await queryRunner.query('INSERT INTO event_retention DEFAULT VALUES');
    await queryRunner.query(`
      CREATE FUNCTION events_number_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- Transaction-scoped: released only once this transaction's commit is visible, so the next
        -- transaction to number its events does so after ours are visible (re-entrant within one).
        PERFORM pg_advisory_xact_lock(7305416350);
        UPDATE events SET sequence = nextval('events_sequence')
         WHERE event_id = NEW.event_id AND sequence IS NULL;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE CONSTRAINT TRIGGER events_number_at_commit AFTER INSERT ON events
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION events_number_at_commit()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE event_retention');
    await queryRunner.query('DROP TABLE events');
    await queryRunner.query('DROP FUNCTION events_number_at_commit()');
    await queryRunner.query('DROP SEQUENCE events_sequence');
  }
}
