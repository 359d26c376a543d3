import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The history of webhook deliveries partitioned by UTC day over `created_at`, as `webhook_delivery_history`
 * (docs/decisions/0154-webhook-delivery-queue.md), without copying a row and without holding writers more than
 * a few catalog statements; the same steps as the events' (1763800020000):
 *
 * 1. the indexes a partition needs are built beside the old ones CONCURRENTLY (writers go on): the primary key
 *    with the partition key, and an endpoint's deliveries by creation (the unique endpoint-and-event index,
 *    which a partitioned table cannot have without the partition key, served the endpoint filter);
 * 2. a CHECK `created_at < cut` and the history's CHECK (ended deliveries only) are added NOT VALID (no scan)
 *    and VALIDATEd (SHARE UPDATE EXCLUSIVE: writers go on), the cut a UTC midnight at least 6 hours ahead;
 * 3. in one short transaction the old table's primary key is swapped for the new index (catalog only), the
 *    partitioned `webhook_delivery_history` created with the same columns and indexes, and the old table
 *    ATTACHed as its partition below the cut (its indexes and foreign key match, the CHECKs spare the scans),
 *    with a default partition;
 * 4. the days from the cut on are made (the events' maintenance job keeps making them ahead).
 *
 * The old table keeps its name, `webhook_deliveries`, as the partition below the cut: the previous release,
 * still running during a rolling deploy, writes there (its fan-out's `ON CONFLICT (webhook_endpoint_id,
 * event_id)` names the old table's unique index, and its pending rows go to the queue by 1763800021000's
 * triggers), so it keeps working; it reads only the deliveries that ended before this migration. The
 * partition is dropped, triggers, unique index and all, once wholly past retention; the columns only the queue
 * uses (`next_attempt_at`, `single_attempt`, `claimed_until`, `claim_token`) can go from the history then.
 *
 * Not in a transaction (CREATE INDEX CONCURRENTLY); each step can be run again after a failure.
 */
export class WebhookDeliveryHistoryByDay1763800021200 implements MigrationInterface {
  name = 'WebhookDeliveryHistoryByDay1763800021200';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    // A lock the swap cannot get soon fails the migration (run it again) rather than queueing writers long.
    await queryRunner.query("SET lock_timeout = '5s'");
    // An index a failed concurrent build left invalid is built again.
    for (const index of ['webhook_deliveries_id_at_idx', 'webhook_deliveries_endpoint_created_idx']) {
      await queryRunner.query(`
        DO $$ BEGIN
          IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('${index}') AND NOT indisvalid) THEN
            EXECUTE 'DROP INDEX ${index}';
          END IF;
        END $$`);
    }
    await queryRunner.query(
      'CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS webhook_deliveries_id_at_idx ON webhook_deliveries (delivery_id, created_at)',
    );
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS webhook_deliveries_endpoint_created_idx
         ON webhook_deliveries (webhook_endpoint_id, created_at DESC, delivery_id DESC)`,
    );
    const [{ cut }] = (await queryRunner.query(
      `SELECT to_char(date_trunc('day', now() AT TIME ZONE 'UTC' + interval '30 hours'), 'YYYY-MM-DD"T00:00:00Z"') AS cut`,
    )) as Array<{ cut: string }>;
    await queryRunner.query(
      'ALTER TABLE webhook_deliveries DROP CONSTRAINT IF EXISTS webhook_deliveries_before_cut',
    );
    await queryRunner.query(
      `ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_before_cut CHECK (created_at < '${cut}'::timestamptz) NOT VALID`,
    );
    await queryRunner.query(
      'ALTER TABLE webhook_deliveries VALIDATE CONSTRAINT webhook_deliveries_before_cut',
    );
    await queryRunner.query(
      'ALTER TABLE webhook_deliveries DROP CONSTRAINT IF EXISTS webhook_delivery_history_ended',
    );
    await queryRunner.query(
      `ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_delivery_history_ended CHECK (status IN ('SUCCEEDED', 'FAILED')) NOT VALID`,
    );
    await queryRunner.query(
      'ALTER TABLE webhook_deliveries VALIDATE CONSTRAINT webhook_delivery_history_ended',
    );

    await queryRunner.startTransaction();
    try {
      await queryRunner.query('ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_pkey');
      await queryRunner.query(
        'ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_id_at_pkey PRIMARY KEY USING INDEX webhook_deliveries_id_at_idx',
      );
      await queryRunner.query(`
        CREATE TABLE webhook_delivery_history (
          delivery_id uuid NOT NULL,
          webhook_endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (webhook_endpoint_id) ON DELETE CASCADE,
          event_id uuid NOT NULL,
          event_type text NOT NULL,
          status text NOT NULL,
          attempts integer NOT NULL DEFAULT 0,
          next_attempt_at timestamptz,
          last_attempt_at timestamptz,
          last_response_status integer,
          last_error text,
          single_attempt boolean NOT NULL DEFAULT false,
          claimed_until timestamptz,
          claim_token uuid,
          created_at timestamptz NOT NULL,
          updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
          CONSTRAINT webhook_delivery_history_ended CHECK (status IN ('SUCCEEDED', 'FAILED')),
          PRIMARY KEY (delivery_id, created_at)
        ) PARTITION BY RANGE (created_at)`);
      // As the old table's, so that its indexes are attached with it, not built.
      await queryRunner.query(
        'CREATE INDEX webhook_delivery_history_event_idx ON webhook_delivery_history (event_id)',
      );
      await queryRunner.query(
        'CREATE INDEX webhook_delivery_history_created_idx ON webhook_delivery_history (created_at DESC, delivery_id DESC)',
      );
      await queryRunner.query(
        `CREATE INDEX webhook_delivery_history_endpoint_idx
           ON webhook_delivery_history (webhook_endpoint_id, created_at DESC, delivery_id DESC)`,
      );
      await queryRunner.query(
        `ALTER TABLE webhook_delivery_history ATTACH PARTITION webhook_deliveries FOR VALUES FROM (MINVALUE) TO ('${cut}')`,
      );
      await queryRunner.query(
        'CREATE TABLE webhook_delivery_history_default PARTITION OF webhook_delivery_history DEFAULT',
      );
      await queryRunner.commitTransaction();
    } catch (error: unknown) {
      await queryRunner.rollbackTransaction();
      throw error;
    }
    for (let day = 0; day < 7; day++) {
      await queryRunner.query(`
        DO $$
        DECLARE
          since timestamptz := '${cut}'::timestamptz + make_interval(days => ${day});
        BEGIN
          EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF webhook_delivery_history FOR VALUES FROM (%L) TO (%L)',
            'webhook_delivery_history_p' || to_char(since AT TIME ZONE 'UTC', 'YYYYMMDD'), since, since + interval '1 day');
        END $$`);
    }
    await queryRunner.query('RESET lock_timeout');
  }

  /** Back to one table: the day partitions' rows moved into the old one (a copy: not for a large history). */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.startTransaction();
    try {
      await queryRunner.query('ALTER TABLE webhook_delivery_history DETACH PARTITION webhook_deliveries');
      await queryRunner.query('ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_before_cut');
      await queryRunner.query(`
        INSERT INTO webhook_deliveries (${COLUMNS}) SELECT ${COLUMNS} FROM webhook_delivery_history`);
      await queryRunner.query('DROP TABLE webhook_delivery_history');
      await queryRunner.query('ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_id_at_pkey');
      await queryRunner.query('ALTER TABLE webhook_deliveries ADD PRIMARY KEY (delivery_id)');
      await queryRunner.query(
        'ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_delivery_history_ended',
      );
      await queryRunner.query('DROP INDEX webhook_deliveries_endpoint_created_idx');
      await queryRunner.commitTransaction();
    } catch (error: unknown) {
      await queryRunner.rollbackTransaction();
      throw error;
    }
  }
}

const COLUMNS = `delivery_id, webhook_endpoint_id, event_id, event_type, status, attempts, next_attempt_at,
  last_attempt_at, last_response_status, last_error, single_attempt, claimed_until, claim_token, created_at,
  updated_at`;
