import type { FastifyReply } from 'fastify';
import { entityTag } from '../../http/conditional-requests';
import { formatTimestamp, inOutputForm, outputTimestamp, outputValue } from '../../http/json-output';
import type { DeliveryAddress, Order, OrderLine } from '../domain/order';
import { DeliveryAddressResponse, OrderItemResponse, OrderResponse } from './dto/order-response.dto';

/** Orders are per caller and change often: clients revalidate with If-None-Match. */
export const ORDER_CACHE = 'private, no-cache';

/** The ETag of the current version of an order. */
export function orderEtag(order: Pick<Order, 'orderId' | 'version'>): string {
  return entityTag(order.orderId, order.version);
}

/*
 * Nested parts of an order body are in output form too (the rules do not reach into a marked body). The API
 * never stores an empty street, zip code or product name, but the columns allow one, and a row written by
 * other means must still leave the field out, as the rules would: hence `outputValue` on required fields
 * (their response types stay required: that is what the API itself writes).
 */
export function toAddressResponse(address: DeliveryAddress): DeliveryAddressResponse {
  return {
    streetName: outputValue(address.streetName) as string,
    zipCode: outputValue(address.zipCode) as string,
  };
}

export function toItemResponse(item: OrderLine): OrderItemResponse {
  return {
    itemId: item.itemId,
    productId: item.productId,
    productName: outputValue(item.productName) as string,
    quantity: item.quantity,
    unitPrice: Number(item.unitPrice),
  };
}

/**
 * The v1 Order, built in output form (`inOutputForm`: fields without a value are `undefined` and left
 * out, time stamps are wire text), the JSON output rules' fast path for the hottest body.
 */
export function toOrderResponse(order: Order): OrderResponse {
  return inOutputForm({
    orderId: order.orderId,
    customerId: order.customerId,
    status: order.status,
    totalAmount: Number(order.totalAmount),
    currency: order.currency,
    createdAt: formatTimestamp(order.createdAt),
    updatedAt: outputTimestamp(order.updatedAt),
    confirmedAt: outputTimestamp(order.confirmedAt),
    shippedAt: outputTimestamp(order.shippedAt),
    deliveredAt: outputTimestamp(order.deliveredAt),
    cancelledAt: outputTimestamp(order.cancelledAt),
    refundedAt: outputTimestamp(order.refundedAt),
    deliveryAddress: order.deliveryAddress && toAddressResponse(order.deliveryAddress),
    items: order.items.map(toItemResponse),
    note: outputValue(order.note),
    trackingNumber: outputValue(order.trackingNumber),
    carrier: outputValue(order.carrier),
    cancellationReason: outputValue(order.cancellationReason),
    refundReason: outputValue(order.refundReason),
  });
}

/** One order as the answer: the v1 body, with its ETag and Cache-Control. */
export function sendOrder(reply: FastifyReply, order: Order): OrderResponse {
  void reply.header('etag', orderEtag(order)).header('cache-control', ORDER_CACHE);
  return toOrderResponse(order);
}
