import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The feed's horizon kept in a row, and the positions of the service's event subscribers
 * (docs/decisions/0150-event-subscribers-and-a-kept-horizon.md).
 *
 * `events_horizon()` is what followers (feed pages, subscribers) call instead of waiting for the numbering
 * lock themselves. When events were numbered past the kept horizon: if no transaction holds the numbering
 * lock at that instant (`pg_try_advisory_lock`, which never waits, so no writer queues behind it, released
 * within the call), the latest number is the horizon; otherwise the kept one is served, and once it is older than 100 ms the
 * caller that gets the row's lock (the others skip it) waits for the lock in exclusive mode as
 * `events_feed_horizon()` does and keeps the result. So the blocking exclusive request, the one that queues
 * writers, happens at most once per interval however many followers there are. A kept horizon is as safe as
 * one just taken: it was taken under the exclusive lock and committed afterwards, so every event up to it is
 * visible to any later snapshot. The caller runs it in a transaction of its own that ends at once, and reads
 * events in a later statement.
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
        IF latest = kept.horizon THEN
          RETURN kept.horizon;
        END IF;
        -- No transaction is numbering now: the latest number is the horizon, and no writer waited for it.
        -- Session-level, released before returning: held for the read of the sequence alone, not until this
        -- caller's commit reaches the server.
        IF pg_try_advisory_lock(7305416350) THEN
          BEGIN
            latest := (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM events_sequence);
          EXCEPTION WHEN OTHERS OR QUERY_CANCELED THEN
            PERFORM pg_advisory_unlock(7305416350);
            RAISE;
          END;
          PERFORM pg_advisory_unlock(7305416350);
          RETURN latest;
        END IF;
        IF kept.advanced_at > clock_timestamp() - interval '100 milliseconds' THEN
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
