import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The feed's horizon found by watching the numbering lock instead of taking it
 * (docs/decisions/0151-event-horizon-by-observation.md). Writers number their events at commit holding the
 * numbering lock (key 7305416350) in shared mode, from before their `nextval` until their commit is
 * visible. So once the sequence's latest value has been read, every transaction that may hold a number up to
 * it either has ended or is among the lock's holders read afterwards. `events_horizon()`:
 * - no holder: the latest number is the horizon;
 * - else the kept candidate (a latest number and the holders seen with it) becomes the horizon once none of
 *   those holders holds the lock any more (their virtual transaction ids, never reused while they run), and
 *   the latest number with today's holders is kept as the next candidate.
 * Nothing waits on the lock and nobody takes it in exclusive mode, so followers never queue a writer; a
 * follower that finds the row locked by another serves what it computed without keeping it.
 * `advanced_at` is no longer read or written (the function before this one used it; kept for the revert). The caller runs
 * it in a transaction of its own that ends at once, and reads events in a later statement.
 */
export class EventHorizonByObservation1763800019000 implements MigrationInterface {
  name = 'EventHorizonByObservation1763800019000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE event_horizon ADD COLUMN candidate bigint, ADD COLUMN candidate_holders text[]',
    );
    await queryRunner.query(`
      CREATE FUNCTION events_numbering_holders() RETURNS text[] LANGUAGE sql VOLATILE AS $$
        SELECT COALESCE(array_agg(l.virtualtransaction), '{}')
          FROM pg_locks l
         WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
           AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND ((l.classid::bigint << 32) | l.objid::bigint) = 7305416350
      $$`);
    // What the kept row and the holders seen now allow: the latest number when nothing is numbering, the
    // candidate once none of its holders holds any more, else the kept horizon.
    await queryRunner.query(`
      CREATE FUNCTION events_horizon_from(kept event_horizon, latest bigint, holders text[]) RETURNS bigint
      LANGUAGE sql IMMUTABLE AS $$
        SELECT GREATEST(kept.horizon, CASE
          WHEN cardinality(holders) = 0 THEN latest
          WHEN kept.candidate > kept.horizon AND NOT (kept.candidate_holders && holders) THEN kept.candidate
          ELSE kept.horizon END)
      $$`);
    // A new candidate is kept once the last one is reached; a pending one is not replaced (a steady stream of
    // writers would otherwise postpone the horizon for ever).
    await queryRunner.query(`
      CREATE FUNCTION events_horizon_candidate_reached(kept event_horizon, latest bigint, safe bigint) RETURNS boolean
      LANGUAGE sql IMMUTABLE AS $$
        SELECT latest > safe AND (kept.candidate IS NULL OR kept.candidate <= safe)
      $$`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION events_horizon() RETURNS bigint LANGUAGE plpgsql AS $$
      DECLARE
        kept event_horizon%ROWTYPE;
        latest bigint;
        holders text[];
        safe bigint;
      BEGIN
        SELECT * INTO kept FROM event_horizon;
        -- The latest number first, its possible holders after: a number given before this read was given
        -- under a shared hold taken before it, still listed below unless its transaction has ended.
        SELECT CASE WHEN is_called THEN last_value ELSE 0 END INTO latest FROM events_sequence;
        IF latest = kept.horizon THEN
          RETURN kept.horizon;
        END IF;
        holders := events_numbering_holders();
        safe := events_horizon_from(kept, latest, holders);
        -- Written only when it moves (a write costs WAL and the row's lock), by one keeper at a
        -- time; the others serve what they computed.
        IF safe > kept.horizon OR events_horizon_candidate_reached(kept, latest, safe) THEN
          SELECT * INTO kept FROM event_horizon FOR UPDATE SKIP LOCKED;
          IF FOUND THEN
            safe := events_horizon_from(kept, latest, holders);
            -- The row only saves work: lost in a crash, an older horizon is as safe (and feed cursors and
            -- subscribers' positions never move back), so its commit need not wait for the disk.
            PERFORM set_config('synchronous_commit', 'off', true);
            UPDATE event_horizon
               SET horizon = safe,
                   candidate = CASE WHEN events_horizon_candidate_reached(kept, latest, safe)
                                    THEN latest ELSE kept.candidate END,
                   candidate_holders = CASE WHEN events_horizon_candidate_reached(kept, latest, safe)
                                    THEN holders ELSE kept.candidate_holders END;
          END IF;
        END IF;
        RETURN safe;
      END $$`);
    // Nothing takes the numbering lock in exclusive mode any more.
    await queryRunner.query('DROP FUNCTION events_feed_horizon()');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION events_feed_horizon() RETURNS bigint LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock(7305416350);
        RETURN (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM events_sequence);
      END $$`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION events_horizon() RETURNS bigint LANGUAGE plpgsql AS $$
      DECLARE
        kept event_horizon%ROWTYPE;
        latest bigint;
      BEGIN
        SELECT * INTO kept FROM event_horizon;
        SELECT CASE WHEN is_called THEN last_value ELSE 0 END INTO latest FROM events_sequence;
        IF latest = kept.horizon THEN
          RETURN kept.horizon;
        END IF;
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
        SELECT * INTO kept FROM event_horizon FOR UPDATE SKIP LOCKED;
        IF NOT FOUND OR kept.advanced_at > clock_timestamp() - interval '100 milliseconds' THEN
          RETURN (SELECT horizon FROM event_horizon);
        END IF;
        latest := events_feed_horizon();
        UPDATE event_horizon SET horizon = GREATEST(horizon, latest), advanced_at = clock_timestamp()
          RETURNING horizon INTO latest;
        RETURN latest;
      END $$`);
    await queryRunner.query('DROP FUNCTION events_horizon_candidate_reached(event_horizon, bigint, bigint)');
    await queryRunner.query('DROP FUNCTION events_horizon_from(event_horizon, bigint, text[])');
    await queryRunner.query('DROP FUNCTION events_numbering_holders()');
    await queryRunner.query('ALTER TABLE event_horizon DROP COLUMN candidate, DROP COLUMN candidate_holders');
  }
}
