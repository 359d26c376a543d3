import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Long-running tasks and their results. A task row is committed before its job is queued
 * (`queued_at` tells whether the job reached the queue; the reconciler queues it again otherwise); its
 * result commits together with its COMPLETED status. Reports keep their body; exports keep a file in blob
 * storage (src/platform/storage/), referenced by an opaque key.
 */
export class Tasks1763800011000 implements MigrationInterface {
  name = 'Tasks1763800011000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE tasks (
        task_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        type text NOT NULL CHECK (type IN ('REPORT_GENERATION', 'CUSTOMER_EXPORT')),
        owner_id uuid NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
        status text NOT NULL DEFAULT 'PENDING'
          CHECK (status IN ('PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED')),
        progress smallint NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
        parameters jsonb NOT NULL,
        result_kind text CHECK (result_kind IN ('report', 'export')),
        result_id uuid,
        error_code text,
        error_args jsonb,
        attempts smallint NOT NULL DEFAULT 0 CHECK (attempts >= 0),
        job_id text,
        queued_at timestamptz,
        traceparent text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz,
        started_at timestamptz,
        completed_at timestamptz,
        CHECK ((status = 'COMPLETED') = (result_id IS NOT NULL AND result_kind IS NOT NULL)),
        CHECK ((status = 'FAILED') = (error_code IS NOT NULL)),
        CHECK ((status IN ('COMPLETED', 'FAILED')) = (completed_at IS NOT NULL))
      )`);
    await queryRunner.query(
      "CREATE INDEX tasks_unfinished_idx ON tasks (created_at) WHERE status IN ('PENDING', 'PROCESSING')",
    );
    await queryRunner.query(
      `CREATE INDEX tasks_finished_idx ON tasks ((COALESCE(completed_at, updated_at)))
       WHERE status IN ('COMPLETED', 'FAILED', 'CANCELLED')`,
    );
    await queryRunner.query(`
      CREATE TABLE reports (
        report_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        task_id uuid NOT NULL UNIQUE REFERENCES tasks (task_id) ON DELETE CASCADE,
        owner_id uuid NOT NULL,
        body jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE exports (
        export_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        task_id uuid NOT NULL UNIQUE REFERENCES tasks (task_id) ON DELETE CASCADE,
        owner_id uuid NOT NULL,
        customer_id uuid NOT NULL,
        format text NOT NULL CHECK (format IN ('CSV', 'JSON')),
        file_name text NOT NULL,
        content_type text NOT NULL,
        blob_key text NOT NULL,
        size bigint NOT NULL CHECK (size >= 0),
        sha256 char(64) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE exports');
    await queryRunner.query('DROP TABLE reports');
    await queryRunner.query('DROP TABLE tasks');
  }
}
