import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Events are numbered at commit under the numbering lock in shared mode: committing writers no longer wait
 * for each other (each still holds the lock until its commit is visible). The feed's guard instead:
 * `events_feed_horizon()` takes the lock in exclusive mode, which is granted once every transaction that has
 * numbered its events has ended and lets none number meanwhile, and returns the highest number given so far;
 * a page read afterwards (in a later statement) serves events up to it only, all of which are then visible
 * or never will be (docs/decisions/0110-events-numbered-at-commit.md). The exclusive hold lasts one
 * statement. `events_sequence` must keep CACHE 1: with a cache, a session could still hand out numbers
 * below the horizon.
 */
export class EventsNumberedInSharedMode1763800016100 implements MigrationInterface {
  name = 'EventsNumberedInSharedMode1763800016100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(numberingFunction('pg_advisory_xact_lock_shared'));
    await queryRunner.query(`
      CREATE FUNCTION events_feed_horizon() RETURNS bigint LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock(7305416350);
        RETURN (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM events_sequence);
      END $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP FUNCTION events_feed_horizon()');
    await queryRunner.query(numberingFunction('pg_advisory_xact_lock'));
  }
}

function numberingFunction(lock: string): string {
  return `
    CREATE OR REPLACE FUNCTION events_number_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- Transaction-scoped: released only once this transaction's commit is visible.
      PERFORM ${lock}(7305416350);
      UPDATE events SET sequence = nextval('events_sequence')
       WHERE event_id = NEW.event_id AND sequence IS NULL;
      RETURN NULL;
    END $$`;
}
