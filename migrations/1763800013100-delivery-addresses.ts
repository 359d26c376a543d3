import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The caller's delivery addresses (docs/decisions/0051-delivery-addresses.md). Exactly one default per user
 * with any address: the partial unique index lets no user have two (whatever a writer does), and the service
 * keeps one (first address, moving it, deleting it) in transactions serialized per user.
 */
export class DeliveryAddresses1763800013100 implements MigrationInterface {
  name = 'DeliveryAddresses1763800013100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE delivery_addresses (
        address_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
        street_name text NOT NULL CHECK (char_length(street_name) BETWEEN 1 AND 200),
        zip_code text NOT NULL CHECK (char_length(zip_code) BETWEEN 1 AND 20),
        is_default boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    // At most one default per user; also the index of the `default` alias and of order creation's lookup.
    await queryRunner.query(
      'CREATE UNIQUE INDEX delivery_addresses_one_default_idx ON delivery_addresses (user_id) WHERE is_default',
    );
    // A user's list, newest first (also finds the newest remaining address when the default is deleted).
    await queryRunner.query(
      'CREATE INDEX delivery_addresses_user_created_idx ON delivery_addresses (user_id, created_at DESC, address_id DESC)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE delivery_addresses');
  }
}
