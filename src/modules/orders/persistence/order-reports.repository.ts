import { Injectable } from '@nestjs/common';
import type { CreationKey, CreationRange, OrderAggregateChunk } from '../domain/order-aggregates';
import { Sql } from '../../../platform/database/sql';
import { replicaRead } from '../../../platform/database/sql-statement';
import { instantKeyText } from './order-list.sql';

const COUNT_CREATED_IN = replicaRead(
  `SELECT count(*)::bigint AS n FROM orders
   WHERE created_at >= ($1::date)::timestamp AT TIME ZONE 'UTC' AND created_at < ($2::date + 1)::timestamp AT TIME ZONE 'UTC'`,
);

const AGGREGATE_CHUNK = replicaRead(
  `WITH chunk AS (
     SELECT order_id, created_at, status, total_amount FROM orders
     WHERE created_at >= ($1::date)::timestamp AT TIME ZONE 'UTC'
       AND created_at < ($2::date + 1)::timestamp AT TIME ZONE 'UTC'
       AND ($3::timestamptz IS NULL OR (created_at, order_id) > ($3::timestamptz, $4::uuid))
     ORDER BY created_at, order_id LIMIT $5)
   SELECT
     (SELECT count(*) FROM chunk)::int AS orders,
     (SELECT json_build_object('createdAt', ${instantKeyText('created_at')}, 'orderId', order_id)
        FROM chunk ORDER BY created_at DESC, order_id DESC LIMIT 1) AS last,
     COALESCE((SELECT json_agg(d) FROM (
        SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, status,
               count(*)::int AS orders, sum(total_amount)::text AS amount
        FROM chunk GROUP BY 1, 2) d), '[]'::json) AS days,
     COALESCE((SELECT json_agg(p) FROM (
        SELECT i.product_id AS "productId", max(i.product_name) AS "productName",
               sum(i.quantity)::bigint AS quantity, sum(i.unit_price * i.quantity)::text AS amount
        -- LATERAL keeps the lines read through the order index, whatever the chunk size: a hash join would
        -- scan every line of every order for each chunk.
        FROM chunk c CROSS JOIN LATERAL (
          SELECT product_id, product_name, quantity, unit_price FROM order_items WHERE order_id = c.order_id) i
        GROUP BY i.product_id) p), '[]'::json)
       AS products`,
);

/** The statements of reports: sums over the orders created in a range, a keyset chunk at a time. */
@Injectable()
export class OrderReportsRepository {
  constructor(private readonly sql: Sql) {}

  async countCreatedIn(range: CreationRange): Promise<number> {
    const [{ n }] = await this.sql.rows<{ n: string }>(COUNT_CREATED_IN, [range.dateFrom, range.dateTo]);
    return Number(n);
  }

  /**
   * Aggregates the next `limit` orders created in `range` after `after` (keyset over the creation index),
   * in one statement: counts and amounts per UTC day and status, quantities and amounts per product.
   */
  async aggregateChunk(
    range: CreationRange,
    after: CreationKey | undefined,
    limit: number,
  ): Promise<OrderAggregateChunk> {
    const [row] = await this.sql.rows<{
      orders: number;
      last: CreationKey | null;
      days: OrderAggregateChunk['days'];
      products: Array<
        Omit<OrderAggregateChunk['products'][number], 'quantity'> & { quantity: number | string }
      >;
    }>(AGGREGATE_CHUNK, [
      range.dateFrom,
      range.dateTo,
      after?.createdAt ?? null,
      after?.orderId ?? null,
      limit,
    ]);
    return {
      orders: row.orders,
      ...(row.last ? { last: row.last } : {}),
      days: row.days,
      products: row.products.map((p) => ({ ...p, quantity: Number(p.quantity) })),
    };
  }
}
