import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';

/**
 * Bulk data for tests that need many orders (reports, exports): set-based SQL, seconds for tens of
 * thousands of orders, where the API would take minutes. Triggers run as for any insert.
 */

/** A customer profile row (as the first authenticated request would create it). */
export async function seedCustomer(db: DataSource, userId: string = randomUUID()): Promise<string> {
  await db.query(`INSERT INTO users (user_id, roles) VALUES ($1, '{CUSTOMER}') ON CONFLICT DO NOTHING`, [
    userId,
  ]);
  return userId;
}

/** A product row; resolves with its id. */
export async function seedProduct(db: DataSource, name: string, price: string): Promise<string> {
  const [row] = (await db.query(
    `INSERT INTO products (name, price, stock, status) VALUES ($1, $2, 1000000, 'ACTIVE') RETURNING product_id`,
    [name, price],
  )) as Array<{ product_id: string }>;
  return row.product_id;
}

/**
 * `count` orders of `customerId`, one line each (`quantity` of `productId` at `unitPrice`), created one
 * second apart from `from` (an ISO instant), status CREATED.
 */
export async function seedOrders(
  db: DataSource,
  options: {
    customerId: string;
    count: number;
    from: string;
    productId: string;
    unitPrice: string;
    quantity?: number;
  },
): Promise<void> {
  const { customerId, count, from, productId, unitPrice, quantity = 1 } = options;
  await db.transaction(async (manager) => {
    // One long statement (the triggers keep every order's search text): no statement timeout of the app's
    // bounds it, since load stretches it.
    await manager.query('SET LOCAL statement_timeout = 0');
    await manager.query(
      `WITH created AS (
       INSERT INTO orders (customer_id, total_amount, created_at)
       SELECT $1, $4::numeric * $5, $2::timestamptz + make_interval(secs => g - 1)
       FROM generate_series(1, $3::int) g
       RETURNING order_id, created_at)
     INSERT INTO order_items (order_id, product_id, product_name, unit_price, quantity, created_at)
     SELECT c.order_id, $6, p.name, $4::numeric, $5, c.created_at FROM created c, products p WHERE p.product_id = $6`,
      [customerId, from, count, unitPrice, quantity, productId],
    );
  });
}
