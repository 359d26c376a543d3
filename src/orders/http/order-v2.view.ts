import type { FastifyReply } from 'fastify';
import type { Order, OrderLine } from '../domain/order';
import { MoneyV2, OrderItemV2Response, OrderV2Response } from './dto/order-v2-response.dto';
import { formatTimestamp, inOutputForm, outputTimestamp, outputValue } from '../../http/json-output';
import { ORDER_CACHE, orderEtag, toAddressResponse } from './order.view';

/** `numeric(12,2)` text as PostgreSQL prints it (`12.5` would be a bug upstream: it prints `12.50`). */
const DECIMAL = /^(\d+)(?:\.(\d{1,2}))?$/;

/**
 * A money amount of the model (decimal text) as v2 serves it: exactly 2 decimals, as text, so no client
 * parses it into a binary float.
 */
export function toMoneyV2(amount: string, currency: string): MoneyV2 {
  const match = DECIMAL.exec(amount);
  if (!match) throw new Error(`not a money amount: ${amount}`);
  return { amount: `${match[1]}.${(match[2] ?? '').padEnd(2, '0')}`, currency };
}

function toItemV2Response(item: OrderLine, currency: string): OrderItemV2Response {
  return {
    itemId: item.itemId,
    productId: item.productId,
    productName: outputValue(item.productName) as string,
    quantity: item.quantity,
    unitPrice: toMoneyV2(item.unitPrice, currency),
  };
}

/** The v2 Order: v1's fields, money as MoneyV2 (`total` for `totalAmount`); in output form, as v1's. */
export function toOrderV2Response(order: Order): OrderV2Response {
  return inOutputForm({
    orderId: order.orderId,
    customerId: order.customerId,
    status: order.status,
    total: toMoneyV2(order.totalAmount, order.currency),
    currency: order.currency,
    createdAt: formatTimestamp(order.createdAt),
    updatedAt: outputTimestamp(order.updatedAt),
    confirmedAt: outputTimestamp(order.confirmedAt),
    shippedAt: outputTimestamp(order.shippedAt),
    deliveredAt: outputTimestamp(order.deliveredAt),
    cancelledAt: outputTimestamp(order.cancelledAt),
    refundedAt: outputTimestamp(order.refundedAt),
    deliveryAddress: order.deliveryAddress && toAddressResponse(order.deliveryAddress),
    items: order.items.map((item) => toItemV2Response(item, order.currency)),
    note: outputValue(order.note),
    trackingNumber: outputValue(order.trackingNumber),
    carrier: outputValue(order.carrier),
    cancellationReason: outputValue(order.cancellationReason),
    refundReason: outputValue(order.refundReason),
  });
}

/**
 * One order as the v2 answer, with the same ETag and Cache-Control as v1: the tag names the order's
 * version, which both representations show (so a v2 tag is a valid `If-Match` on v1 writes).
 */
export function sendOrderV2(reply: FastifyReply, order: Order): OrderV2Response {
  void reply.header('etag', orderEtag(order)).header('cache-control', ORDER_CACHE);
  return toOrderV2Response(order);
}
