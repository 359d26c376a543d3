import { EntityManager } from 'typeorm';
import type { PricedLine } from './order-lines';
import { OrderRow, selectOrders, toRecord } from './order-reader';
import type { OrderRecord } from './order.view';

export interface NewOrder {
  customerId: string;
  deliveryStreetName: string | null;
  deliveryZipCode: string | null;
  note: string | null;
}

/**
 * Inserts an order, its lines and its total and returns the whole order, in one statement (data-modifying
 * CTEs): one round trip, atomic without a transaction of its own, and nothing to read afterwards — so a
 * failure can never leave an order created behind an error response (which would let an idempotent retry
 * create it twice). Lines keep their request order (`created_at` is the clock time of each row); the total
 * is the sum of the frozen prices, computed by PostgreSQL in `numeric`.
 */
const INSERT_ORDER = `
  WITH lines AS (
    SELECT * FROM unnest($5::uuid[], $6::text[], $7::numeric[], $8::int[])
      WITH ORDINALITY AS l(product_id, product_name, unit_price, quantity, position)
  ), created AS (
    INSERT INTO orders (customer_id, delivery_street_name, delivery_zip_code, note, total_amount)
    SELECT $1, $2, $3, $4, COALESCE((SELECT sum(unit_price * quantity) FROM lines), 0)
    RETURNING *
  ), items AS (
    INSERT INTO order_items (order_id, product_id, product_name, unit_price, quantity)
    SELECT created.order_id, l.product_id, l.product_name, l.unit_price, l.quantity
    FROM created CROSS JOIN lines l ORDER BY l.position
    RETURNING *
  )
  ${selectOrders('created', 'items')}`;

export async function insertOrder(
  manager: EntityManager,
  order: NewOrder,
  lines: PricedLine[],
): Promise<OrderRecord> {
  const rows: OrderRow[] = await manager.query(INSERT_ORDER, [
    order.customerId,
    order.deliveryStreetName,
    order.deliveryZipCode,
    order.note,
    lines.map((l) => l.productId),
    lines.map((l) => l.productName),
    lines.map((l) => l.unitPrice),
    lines.map((l) => l.quantity),
  ]);
  return toRecord(rows[0]);
}
