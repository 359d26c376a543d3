import { Injectable } from '@nestjs/common';
import type { CreationKey } from '../domain/order-aggregates';
import { Sql } from '../../../platform/database/sql';
import { replicaRead } from '../../../platform/database/sql-statement';
import { ORDER_SQL } from './order-json.sql';
import { instantKeyText } from './order-list.sql';

const V1_BODY = ORDER_SQL.body('v1');

const READ_CUSTOMER_CHUNK = replicaRead(
  `SELECT ${V1_BODY} AS body, o.order_id,
     ${instantKeyText('o.created_at')} AS created_at
   FROM orders o
   WHERE o.customer_id = $1
     AND ($2::timestamptz IS NULL OR (o.created_at, o.order_id) > ($2::timestamptz, $3::uuid))
   ORDER BY o.created_at, o.order_id LIMIT $4`,
);
const COUNT_CUSTOMER_ORDERS = replicaRead('SELECT count(*)::bigint AS n FROM orders WHERE customer_id = $1');

/** The statements of customer exports: a customer's orders, a keyset chunk at a time, as v1 serves them. */
@Injectable()
export class OrderExportsRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * A customer's orders in creation order, `limit` at a time after `after` (keyset: the customer index
   * starts at the position, so every chunk costs the same), each as its v1 body's JSON text, and the key of
   * the last one for the next chunk.
   */
  async readCustomerChunk(
    customerId: string,
    after: CreationKey | undefined,
    limit: number,
  ): Promise<{ bodies: string[]; last?: CreationKey }> {
    const rows = await this.sql.rows<{ body: string; created_at: string; order_id: string }>(
      READ_CUSTOMER_CHUNK,
      [customerId, after?.createdAt ?? null, after?.orderId ?? null, limit],
    );
    const last = rows[rows.length - 1];
    return {
      bodies: rows.map((r) => r.body),
      ...(last ? { last: { createdAt: last.created_at, orderId: last.order_id } } : {}),
    };
  }

  async countCustomerOrders(customerId: string): Promise<number> {
    const [{ n }] = await this.sql.rows<{ n: string }>(COUNT_CUSTOMER_ORDERS, [customerId]);
    return Number(n);
  }
}
