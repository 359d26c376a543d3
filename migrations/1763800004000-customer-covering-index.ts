import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A customer's order lists read only the key and filter columns of their orders; with those in the index
 * the lists become index-only scans of the customer's range instead of one heap page per order.
 */
export class CustomerCoveringIndex1763800004000 implements MigrationInterface {
  name = 'CustomerCoveringIndex1763800004000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE INDEX orders_customer_listing_idx ON orders (customer_id, created_at DESC, order_id DESC)
      INCLUDE (status, total_amount, updated_at)`);
    await queryRunner.query('DROP INDEX orders_customer_created_idx');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX orders_customer_created_idx ON orders (customer_id, created_at DESC, order_id DESC)',
    );
    await queryRunner.query('DROP INDEX orders_customer_listing_idx');
  }
}
