import type { FastifyReply } from 'fastify';
import { entityTag } from '../../http/conditional-requests';
import type { Order, OrderLine } from '../domain/order';
import { OrderItemResponse, OrderResponse } from './dto/order-response.dto';

/** Orders are per caller and change often: clients revalidate with If-None-Match. */
export const ORDER_CACHE = 'private, no-cache';

/** The ETag of the current version of an order. */
export function orderEtag(order: Pick<Order, 'orderId' | 'version'>): string {
  return entityTag(order.orderId, order.version);
}

export function toItemResponse(item: OrderLine): OrderItemResponse {
  return {
    itemId: item.itemId,
    productId: item.productId,
    productName: item.productName,
    quantity: item.quantity,
    unitPrice: Number(item.unitPrice),
  };
}

/**
 * The v1 Order. Fields without a value are left undefined here and omitted by the JSON output rules,
 * which are the one place that decides the wire format.
 */
export function toOrderResponse(order: Order): OrderResponse {
  return {
    orderId: order.orderId,
    customerId: order.customerId,
    status: order.status,
    totalAmount: Number(order.totalAmount),
    currency: order.currency,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
    confirmedAt: order.confirmedAt,
    shippedAt: order.shippedAt,
    deliveredAt: order.deliveredAt,
    cancelledAt: order.cancelledAt,
    refundedAt: order.refundedAt,
    deliveryAddress: order.deliveryAddress,
    items: order.items.map(toItemResponse),
    note: order.note,
    trackingNumber: order.trackingNumber,
    carrier: order.carrier,
    cancellationReason: order.cancellationReason,
    refundReason: order.refundReason,
  };
}

/** One order as the answer: the v1 body, with its ETag and Cache-Control. */
export function sendOrder(reply: FastifyReply, order: Order): OrderResponse {
  void reply.header('etag', orderEtag(order)).header('cache-control', ORDER_CACHE);
  return toOrderResponse(order);
}
