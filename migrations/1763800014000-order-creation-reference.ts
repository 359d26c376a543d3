import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The Idempotency-Key an order was created with (caller and key), written by the create statement itself: a
 * retry of a create whose response was never recorded (the process died between the order's commit and the
 * key's completion) finds the order instead of creating a second one
 * (docs/decisions/0086-order-keeps-its-idempotency-key.md). Partial index: only orders created with a key
 * carry one.
 */
export class OrderCreationReference1763800014000 implements MigrationInterface {
  name = 'OrderCreationReference1763800014000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE orders ADD COLUMN creation_reference text');
    await queryRunner.query(
      'CREATE INDEX orders_creation_reference_idx ON orders (creation_reference, created_at) WHERE creation_reference IS NOT NULL',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX orders_creation_reference_idx');
    await queryRunner.query('ALTER TABLE orders DROP COLUMN creation_reference');
  }
}
