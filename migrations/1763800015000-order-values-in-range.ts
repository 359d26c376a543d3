import { MigrationInterface, QueryRunner } from 'typeorm';

/** Columns of the order's points in time, each `YYYY-MM-DDThh:mm:ssZ` on the wire. */
const ORDER_TIMESTAMPS = [
  'created_at',
  'updated_at',
  'confirmed_at',
  'shipped_at',
  'delivered_at',
  'cancelled_at',
  'refunded_at',
];

/** Constraints added here: table, name, condition. */
const CONSTRAINTS: Array<[table: string, name: string, condition: string]> = [
  ['orders', 'orders_total_amount_is_number', `total_amount <> 'NaN'`],
  ['order_items', 'order_items_unit_price_is_number', `unit_price <> 'NaN'`],
  ['products', 'products_price_is_number', `price <> 'NaN'`],
  ...ORDER_TIMESTAMPS.map((column): [string, string, string] => [
    'orders',
    `orders_${column}_in_range`,
    `${column} >= '0001-01-01 00:00:00+00' AND ${column} < '10000-01-01 00:00:00+00'`,
  ]),
];

/**
 * Values the API can never write and cannot send are refused by the schema too: `numeric` accepts 'NaN' (and
 * 'NaN' >= 0 holds, so the existing checks let it through), which is no JSON number; `timestamptz` accepts
 * ±infinity, years BC and years past 9999, which have no `YYYY-MM-DDThh:mm:ssZ` (the wire format of an
 * instant). A row written by other means with such a value could not be rendered as an order body
 * (docs/decisions/0088-order-bodies-rendered-by-postgresql.md). Added NOT VALID and then validated, outside a
 * transaction, so the scan of existing rows holds no lock that blocks writes.
 */
export class OrderValuesInRange1763800015000 implements MigrationInterface {
  name = 'OrderValuesInRange1763800015000';
  transaction = false as const;

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const [table, name, condition] of CONSTRAINTS) {
      await queryRunner.query(`ALTER TABLE ${table} ADD CONSTRAINT ${name} CHECK (${condition}) NOT VALID`);
      await queryRunner.query(`ALTER TABLE ${table} VALIDATE CONSTRAINT ${name}`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [table, name] of [...CONSTRAINTS].reverse()) {
      await queryRunner.query(`ALTER TABLE ${table} DROP CONSTRAINT ${name}`);
    }
  }
}
