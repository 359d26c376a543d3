import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Metadata of uploaded files (src/modules/files/): order attachments and user avatars. The bytes are behind the
 * storage port; `blob_key` is its opaque key (text: the port promises no format).
 *
 * `order_id` has no ON DELETE CASCADE on purpose: deleting an order deletes its attachments through the
 * orders module's deletion hooks, which remove the bytes in the same transaction. A cascade would leave the
 * blobs behind; without one, an order whose attachments were not removed cannot be deleted at all.
 */
export class Attachments1763800012000 implements MigrationInterface {
  name = 'Attachments1763800012000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE attachments (
        attachment_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        order_id uuid REFERENCES orders (order_id),
        avatar_of uuid UNIQUE REFERENCES users (user_id),
        file_name text NOT NULL CHECK (char_length(file_name) BETWEEN 1 AND 255),
        declared_type text CHECK (char_length(declared_type) <= 255),
        content_type text NOT NULL,
        size bigint NOT NULL CHECK (size >= 0),
        sha256 char(64) NOT NULL,
        description text CHECK (char_length(description) BETWEEN 1 AND 500),
        blob_key text NOT NULL UNIQUE,
        uploaded_by uuid NOT NULL,
        uploaded_at timestamptz NOT NULL DEFAULT now(),
        CHECK (num_nonnulls(order_id, avatar_of) = 1)
      )`);
    // An order's attachments in upload order (the list, and the deletion hook).
    await queryRunner.query(
      'CREATE INDEX attachments_order_idx ON attachments (order_id, uploaded_at, attachment_id) WHERE order_id IS NOT NULL',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE attachments');
  }
}
