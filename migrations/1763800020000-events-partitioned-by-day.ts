import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `events` partitioned by UTC day over `occurred_at` (docs/decisions/0153-events-partitioned-by-day.md),
 * without copying a row and without holding writers more than a few catalog statements:
 *
 * 1. the indexes a partition needs (the partition key in the primary key and the sequence index) are built
 *    beside the old ones CONCURRENTLY (writers go on);
 * 2. a CHECK `occurred_at < cut` is added NOT VALID (no scan) and VALIDATEd (SHARE UPDATE EXCLUSIVE: writers
 *    go on), the cut a UTC midnight at least 6 hours ahead so no write meanwhile falls past it;
 * 3. in one short transaction the table is renamed `events_legacy`, its indexes and primary key swapped for
 *    the new ones (catalog only), the partitioned `events` created with the same columns and indexes, and the
 *    old table ATTACHed as its partition below the cut (its indexes match, the CHECK spares the scan); the
 *    default partition and the numbering trigger (its UPDATE names the row's `occurred_at`: one partition
 *    probed) follow, with the first sequence mark (below);
 * 4. the days from the cut on are made (the service's maintenance job keeps making them ahead).
 *
 * `event_sequence_marks` (the maintenance job adds one per run): a mark (`sequence` S, `floor` F,
 * `recorded_at` R) says every event numbered after S began at or after F (F is the oldest transaction open
 * when S was read, less a margin) and every event numbered up to S began before R. A feed page maps its cursor
 * to the days that can hold the next events with them (EventsRepository.feedPage).
 *
 * Not in a transaction (CREATE INDEX CONCURRENTLY); each step can be run again after a failure.
 */
export class EventsPartitionedByDay1763800020000 implements MigrationInterface {
  name = 'EventsPartitionedByDay1763800020000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    // A lock the swap cannot get soon fails the migration (run it again) rather than queueing writers long.
    await queryRunner.query("SET lock_timeout = '5s'");
    // An index a failed concurrent build left invalid is built again.
    for (const index of ['events_legacy_id_at_idx', 'events_legacy_sequence_at_idx']) {
      await queryRunner.query(`
        DO $$ BEGIN
          IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('${index}') AND NOT indisvalid) THEN
            EXECUTE 'DROP INDEX ${index}';
          END IF;
        END $$`);
    }
    await queryRunner.query(
      'CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS events_legacy_id_at_idx ON events (event_id, occurred_at)',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS events_legacy_sequence_at_idx ON events (sequence, occurred_at) WHERE sequence IS NOT NULL',
    );
    const [{ cut }] = (await queryRunner.query(
      `SELECT to_char(date_trunc('day', now() AT TIME ZONE 'UTC' + interval '30 hours'), 'YYYY-MM-DD"T00:00:00Z"') AS cut`,
    )) as Array<{ cut: string }>;
    await queryRunner.query(
      `ALTER TABLE events ADD CONSTRAINT events_legacy_before_cut CHECK (occurred_at < '${cut}'::timestamptz) NOT VALID`,
    );
    await queryRunner.query('ALTER TABLE events VALIDATE CONSTRAINT events_legacy_before_cut');

    await queryRunner.startTransaction();
    try {
      await queryRunner.query('ALTER TABLE events RENAME TO events_legacy');
      await queryRunner.query('ALTER TABLE events_legacy DROP CONSTRAINT events_pkey');
      await queryRunner.query(
        'ALTER TABLE events_legacy ADD CONSTRAINT events_legacy_pkey PRIMARY KEY USING INDEX events_legacy_id_at_idx',
      );
      await queryRunner.query('DROP INDEX events_sequence_idx');
      for (const index of ['order', 'customer', 'type']) {
        await queryRunner.query(`ALTER INDEX events_${index}_idx RENAME TO events_legacy_${index}_idx`);
      }
      await queryRunner.query('DROP TRIGGER events_number_at_commit ON events_legacy');
      await queryRunner.query(`
        CREATE TABLE events (
          event_id uuid NOT NULL DEFAULT gen_random_uuid(),
          sequence bigint,
          type text NOT NULL,
          occurred_at timestamptz NOT NULL DEFAULT now(),
          order_id uuid,
          task_id uuid,
          customer_id uuid,
          actor_id uuid,
          data jsonb NOT NULL,
          CONSTRAINT events_one_subject CHECK ((order_id IS NULL) <> (task_id IS NULL)),
          PRIMARY KEY (event_id, occurred_at)
        ) PARTITION BY RANGE (occurred_at)`);
      await createReadIndexes(queryRunner);
      await queryRunner.query(
        `ALTER TABLE events ATTACH PARTITION events_legacy FOR VALUES FROM (MINVALUE) TO ('${cut}')`,
      );
      await queryRunner.query('CREATE TABLE events_default PARTITION OF events DEFAULT');
      await queryRunner.query(numberingFunction('AND occurred_at = NEW.occurred_at'));
      await queryRunner.query(`
        CREATE CONSTRAINT TRIGGER events_number_at_commit AFTER INSERT ON events
          DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION events_number_at_commit()`);
      await queryRunner.query(`
        CREATE TABLE event_sequence_marks (
          sequence bigint PRIMARY KEY,
          floor timestamptz NOT NULL,
          recorded_at timestamptz NOT NULL
        )`);
      await queryRunner.commitTransaction();
    } catch (error: unknown) {
      await queryRunner.rollbackTransaction();
      throw error;
    }
    // The first mark: transactions open now (their events may still be numbered) bound its floor.
    await queryRunner.query(`
      INSERT INTO event_sequence_marks (sequence, floor, recorded_at)
      SELECT CASE WHEN s.is_called THEN s.last_value ELSE 0 END, f.floor, clock_timestamp()
        FROM (SELECT least(min(xact_start), clock_timestamp()) - interval '1 minute' AS floor
                FROM pg_stat_activity WHERE datname = current_database()) f,
             LATERAL (SELECT * FROM events_sequence) s
      ON CONFLICT (sequence) DO NOTHING`);
    for (let day = 0; day < 7; day++) {
      await queryRunner.query(`
        DO $$
        DECLARE
          since timestamptz := '${cut}'::timestamptz + make_interval(days => ${day});
        BEGIN
          EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF events FOR VALUES FROM (%L) TO (%L)',
            'events_p' || to_char(since AT TIME ZONE 'UTC', 'YYYYMMDD'), since, since + interval '1 day');
        END $$`);
    }
    await queryRunner.query('RESET lock_timeout');
  }

  /** Back to one table: the day partitions' rows moved into the old one (a copy: not for a large table). */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.startTransaction();
    try {
      await queryRunner.query('DROP TABLE event_sequence_marks');
      await queryRunner.query('ALTER TABLE events DETACH PARTITION events_legacy');
      await queryRunner.query('ALTER TABLE events_legacy DROP CONSTRAINT events_legacy_before_cut');
      await queryRunner.query('INSERT INTO events_legacy SELECT * FROM events');
      await queryRunner.query('DROP TABLE events');
      await queryRunner.query('ALTER TABLE events_legacy RENAME TO events');
      await queryRunner.query('ALTER TABLE events DROP CONSTRAINT events_legacy_pkey');
      await queryRunner.query('ALTER TABLE events ADD PRIMARY KEY (event_id)');
      await queryRunner.query('DROP INDEX events_legacy_sequence_at_idx');
      await queryRunner.query(
        'CREATE UNIQUE INDEX events_sequence_idx ON events (sequence) WHERE sequence IS NOT NULL',
      );
      for (const index of ['order', 'customer', 'type']) {
        await queryRunner.query(`ALTER INDEX events_legacy_${index}_idx RENAME TO events_${index}_idx`);
      }
      await queryRunner.query(numberingFunction(''));
      await queryRunner.query(`
        CREATE CONSTRAINT TRIGGER events_number_at_commit AFTER INSERT ON events
          DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION events_number_at_commit()`);
      await queryRunner.commitTransaction();
    } catch (error: unknown) {
      await queryRunner.rollbackTransaction();
      throw error;
    }
  }
}

async function createReadIndexes(queryRunner: QueryRunner): Promise<void> {
  // As the old table's (1763800016000), the sequence index with the partition key: the old ones match and
  // are attached with the old table, not built again.
  await queryRunner.query(
    'CREATE UNIQUE INDEX events_sequence_idx ON events (sequence, occurred_at) WHERE sequence IS NOT NULL',
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
}

function numberingFunction(rowOfItsPartition: string): string {
  return `
    CREATE OR REPLACE FUNCTION events_number_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- Transaction-scoped: released only once this transaction's commit is visible.
      PERFORM pg_advisory_xact_lock_shared(7305416350);
      UPDATE events SET sequence = nextval('events_sequence')
       WHERE event_id = NEW.event_id ${rowOfItsPartition} AND sequence IS NULL;
      RETURN NULL;
    END $$`;
}
