import { EntityManager } from 'typeorm';
import { OrderItemEntity } from './order-item.entity';
import type { OrderRecord } from './order.view';
import { OrderEntity } from './order.entity';

/**
 * The order row with its items aggregated (json_agg) from `orders` and `items` relations: the tables for
 * reads, or the RETURNING rows of the create statement (order-writer.ts), so both map the same way.
 */
export function selectOrders(orders: string, items: string): string {
  return `
  SELECT o.order_id, o.customer_id, o.status, o.currency, o.total_amount::text AS total_amount,
         o.delivery_street_name, o.delivery_zip_code, o.note, o.tracking_number, o.carrier,
         o.cancellation_reason, o.refund_reason, o.version, o.created_at, o.updated_at, o.confirmed_at,
         o.shipped_at, o.delivered_at, o.cancelled_at, o.refunded_at,
         COALESCE((SELECT json_agg(json_build_object(
                     'itemId', i.item_id, 'productId', i.product_id, 'productName', i.product_name,
                     'unitPrice', i.unit_price::text, 'quantity', i.quantity, 'createdAt', i.created_at)
                   ORDER BY i.created_at, i.item_id)
                   FROM ${items} i WHERE i.order_id = o.order_id), '[]'::json) AS items
  FROM ${orders} o`;
}

/**
 * Reads an order with its items in one statement: the hot read path, one round trip and no ORM
 * hydration. Rows map to the same entities the rest of the module uses.
 */
const READ_ORDERS = selectOrders('orders', 'order_items');

export interface OrderRow {
  order_id: string;
  customer_id: string;
  status: OrderEntity['status'];
  currency: string;
  total_amount: string;
  delivery_street_name: string | null;
  delivery_zip_code: string | null;
  note: string | null;
  tracking_number: string | null;
  carrier: string | null;
  cancellation_reason: string | null;
  refund_reason: string | null;
  version: number;
  created_at: Date;
  updated_at: Date | null;
  confirmed_at: Date | null;
  shipped_at: Date | null;
  delivered_at: Date | null;
  cancelled_at: Date | null;
  refunded_at: Date | null;
  items: Array<{
    itemId: string;
    productId: string;
    productName: string;
    unitPrice: string;
    quantity: number;
    createdAt: string;
  }>;
}

export function toRecord(row: OrderRow): OrderRecord {
  const order = Object.assign(new OrderEntity(), {
    orderId: row.order_id,
    customerId: row.customer_id,
    status: row.status,
    currency: row.currency,
    totalAmount: row.total_amount,
    deliveryStreetName: row.delivery_street_name,
    deliveryZipCode: row.delivery_zip_code,
    note: row.note,
    trackingNumber: row.tracking_number,
    carrier: row.carrier,
    cancellationReason: row.cancellation_reason,
    refundReason: row.refund_reason,
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    confirmedAt: row.confirmed_at,
    shippedAt: row.shipped_at,
    deliveredAt: row.delivered_at,
    cancelledAt: row.cancelled_at,
    refundedAt: row.refunded_at,
  });
  const items = row.items.map((i) =>
    Object.assign(new OrderItemEntity(), { ...i, orderId: row.order_id, createdAt: new Date(i.createdAt) }),
  );
  return { order, items };
}

export async function readOrder(manager: EntityManager, orderId: string): Promise<OrderRecord | undefined> {
  const rows: OrderRow[] = await manager.query(`${READ_ORDERS} WHERE o.order_id = $1`, [orderId]);
  return rows[0] ? toRecord(rows[0]) : undefined;
}

/** The customer's most recent order (the `latest` alias). */
export async function readLatestOrder(
  manager: EntityManager,
  customerId: string,
): Promise<OrderRecord | undefined> {
  const rows: OrderRow[] = await manager.query(
    `${READ_ORDERS} WHERE o.customer_id = $1 ORDER BY o.created_at DESC, o.order_id DESC LIMIT 1`,
    [customerId],
  );
  return rows[0] ? toRecord(rows[0]) : undefined;
}
