import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * File bytes (the PostgreSQL adapter of the storage port, src/platform/storage/): one `blobs` row per file and its
 * bytes in fixed-size `blob_chunks` rows. A blob is written (`written_at` set once all chunks are in), then
 * attached by the transaction that stores the metadata referencing it; blobs never attached are purged.
 */
export class BlobStorage1763800010000 implements MigrationInterface {
  name = 'BlobStorage1763800010000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE blobs (
        blob_key uuid PRIMARY KEY,
        size bigint CHECK (size >= 0),
        sha256 char(64),
        attached boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        written_at timestamptz,
        CHECK ((written_at IS NULL) = (size IS NULL) AND (written_at IS NULL) = (sha256 IS NULL)),
        CHECK (NOT attached OR written_at IS NOT NULL)
      )`);
    await queryRunner.query('CREATE INDEX blobs_unattached_idx ON blobs (created_at) WHERE NOT attached');
    await queryRunner.query(`
      CREATE TABLE blob_chunks (
        blob_key uuid NOT NULL REFERENCES blobs (blob_key) ON DELETE CASCADE,
        seq integer NOT NULL CHECK (seq >= 0),
        data bytea NOT NULL,
        PRIMARY KEY (blob_key, seq)
      )`);
    // The bytes are already compressed or binary more often than not: do not spend CPU compressing them.
    await queryRunner.query('ALTER TABLE blob_chunks ALTER COLUMN data SET STORAGE EXTERNAL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE blob_chunks');
    await queryRunner.query('DROP TABLE blobs');
  }
}
