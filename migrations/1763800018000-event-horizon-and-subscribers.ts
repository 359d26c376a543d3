import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The feed's horizon kept in a row, and the positions of the service's event subscribers
 * (docs/decisions/0150-event-subscribers-and-a-kept-horizon.md).
 *
 * `events_horizon()` is what followers (feed pages, subscribers) read instead of taking the numbering lock
 * themselves: the horizon kept in `event_horizon`, advanced by the caller that finds it stale (events
 * numbered past it, and older than `HORIZON_INTERVAL`), one caller at a time (the row's lock, skipped by the
 * others, who serve the kept horizon). The advancing caller takes the horizon as `events_feed_horizon()`
 * does (the numbering lock in exclusive mode). So the numbering lock is taken exclusively at most once per
 * interval however many followers there are. A horizon read from the row is as safe as one just taken: it
 * was taken under the exclusive lock and committed afterwards, so every event up to it is visible to any
 * later snapshot. The caller must run it in a transaction of its own that ends at once, and read events in
 * a later statement.
 *
 * `event_subscribers`: one row per named consumer, its `position` the last sequence it has handled; a runner
 * holds the row's lock for the length of a batch (so a dead runner's batch is rolled back and its row free at
 * once), `attempts`/`next_attempt_at`/`last_error` are its backoff after a failed batch.
 */
export class EventHorizonAndSubscribers1763800018000 implements MigrationInterface {
  name = 'EventHorizonAndSubscribers1763800018000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE event_horizon (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        horizon bigint NOT NULL,
        advanced_at timestamptz NOT NULL
      )`);
    await queryRunner.query(
      'INSERT INTO event_horizon (horizon, advanced_at) SELECT events_feed_horizon(), clock_timestamp()',
    );
    await queryRunner.query(`
      CREATE FUNCTION events_horizon() RETURNS bigint LANGUAGE plpgsql AS $$
      DECLARE
        kept event_horizon%ROWTYPE;
        latest bigint;
      BEGIN
        SELECT * INTO kept FROM event_horizon;
        SELECT CASE WHEN is_called THEN last_value ELSE 0 END INTO latest FROM events_sequence;
        IF latest = kept.horizon OR kept.advanced_at > clock_timestamp() - interval '100 milliseconds' THEN
          RETURN kept.horizon;
        END IF;
        -- One keeper at a time; the others serve the kept horizon meanwhile.
        SELECT * INTO kept FROM event_horizon FOR UPDATE SKIP LOCKED;
        IF NOT FOUND OR kept.advanced_at > clock_timestamp() - interval '100 milliseconds' THEN
          RETURN (SELECT horizon FROM event_horizon);
        END IF;
        latest := events_feed_horizon();
        UPDATE event_horizon SET horizon = GREATEST(horizon, latest), advanced_at = clock_timestamp()
          RETURNING horizon INTO latest;
        RETURN latest;
      END $$`);
    await queryRunner.query(`
      CREATE TABLE event_subscribers (
        name text PRIMARY KEY,
        position bigint NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        last_error text,
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE event_subscribers');
    await queryRunner.query('DROP FUNCTION events_horizon()');
    await queryRunner.query('DROP TABLE event_horizon');
  }
}
