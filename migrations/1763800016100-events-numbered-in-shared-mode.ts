import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Events are numbered at commit under the numbering lock in shared mode: committing writers no longer wait
 * for each other (each still holds the lock until its commit is visible), and the feed takes the lock in
 * exclusive mode before it reads a page, so it waits for every commit already numbered and reads a prefix
 * of the numbers (docs/decisions/0110-events-numbered-at-commit.md). Serializing the writers' commits cost
 * them their shared commit flush (docs/benchmarks.md, bench:events).
 */
export class EventsNumberedInSharedMode1763800016100 implements MigrationInterface {
  name = 'EventsNumberedInSharedMode1763800016100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(numberingFunction('pg_advisory_xact_lock_shared'));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(numberingFunction('pg_advisory_xact_lock'));
  }
}

function numberingFunction(lock: string): string {
  return `
    CREATE OR REPLACE FUNCTION events_number_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- Transaction-scoped: released only once this transaction's commit is visible; a feed page takes
      -- the same key in exclusive mode, so it waits for every transaction that has numbered its events.
      PERFORM ${lock}(7305416350);
      UPDATE events SET sequence = nextval('events_sequence')
       WHERE event_id = NEW.event_id AND sequence IS NULL;
      RETURN NULL;
    END $$`;
}
