import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Users (profile rows created just in time), the product catalogue, orders and their items.
 * Money is numeric(12,2); every mutable row carries a version for ETags and optimistic checks.
 */
export class OrdersCore1763800002000 implements MigrationInterface {
  name = 'OrdersCore1763800002000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE users (
        user_id uuid PRIMARY KEY,
        roles text[] NOT NULL DEFAULT '{CUSTOMER}',
        display_name text CHECK (char_length(display_name) BETWEEN 1 AND 200),
        email text CHECK (char_length(email) <= 320),
        region_id integer CHECK (region_id >= 0),
        segment text CHECK (char_length(segment) BETWEEN 1 AND 50),
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz
      )`);
    await queryRunner.query(`
      CREATE TABLE products (
        product_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        price numeric(12,2) NOT NULL CHECK (price >= 0),
        stock integer NOT NULL CHECK (stock >= 0),
        status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'DISCONTINUED')),
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz
      )`);
    await queryRunner.query(
      'CREATE INDEX products_created_at_idx ON products (created_at DESC, product_id DESC)',
    );
    await queryRunner.query(`
      CREATE TABLE orders (
        order_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        customer_id uuid NOT NULL REFERENCES users (user_id),
        status text NOT NULL DEFAULT 'CREATED'
          CHECK (status IN ('CREATED', 'CONFIRMED', 'SHIPPED', 'DELIVERED', 'CANCELLED', 'REFUNDED')),
        currency char(3) NOT NULL DEFAULT 'RUB',
        total_amount numeric(12,2) NOT NULL DEFAULT 0 CHECK (total_amount >= 0),
        delivery_street_name text,
        delivery_zip_code text,
        note text CHECK (char_length(note) BETWEEN 1 AND 1000),
        tracking_number text,
        carrier text,
        cancellation_reason text,
        refund_reason text,
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz,
        confirmed_at timestamptz,
        shipped_at timestamptz,
        delivered_at timestamptz,
        cancelled_at timestamptz,
        refunded_at timestamptz,
        CHECK ((delivery_street_name IS NULL) = (delivery_zip_code IS NULL))
      )`);
    // The list queries: a customer's orders newest first, everyone's newest first (orderId breaks ties).
    await queryRunner.query(
      'CREATE INDEX orders_customer_created_idx ON orders (customer_id, created_at DESC, order_id DESC)',
    );
    await queryRunner.query('CREATE INDEX orders_created_idx ON orders (created_at DESC, order_id DESC)');
    await queryRunner.query(`
      CREATE TABLE order_items (
        item_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        order_id uuid NOT NULL REFERENCES orders (order_id) ON DELETE CASCADE,
        product_id uuid NOT NULL REFERENCES products (product_id),
        product_name text NOT NULL,
        unit_price numeric(12,2) NOT NULL CHECK (unit_price >= 0),
        quantity integer NOT NULL CHECK (quantity >= 1),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await queryRunner.query(
      'CREATE INDEX order_items_order_idx ON order_items (order_id, created_at, item_id)',
    );
    await queryRunner.query('CREATE INDEX order_items_product_idx ON order_items (product_id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE order_items');
    await queryRunner.query('DROP TABLE orders');
    await queryRunner.query('DROP TABLE products');
    await queryRunner.query('DROP TABLE users');
  }
}
