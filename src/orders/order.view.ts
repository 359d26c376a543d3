import { OrderResponse, OrderItemResponse } from './dto/order-response.dto';
import { OrderItemEntity } from './order-item.entity';
import { OrderEntity } from './order.entity';

/** An order with its lines, as the service hands it to the versioned views. */
export interface OrderRecord {
  order: OrderEntity;
  items: OrderItemEntity[];
}

export function toItemResponse(item: OrderItemEntity): OrderItemResponse {
  return {
    itemId: item.itemId,
    productId: item.productId,
    productName: item.productName,
    quantity: item.quantity,
    unitPrice: Number(item.unitPrice),
  };
}

/**
 * The v1 Order. Fields without a value are left null/undefined here and omitted by the JSON output rules,
 * which are the one place that decides the wire format.
 */
export function toOrderResponse({ order, items }: OrderRecord): OrderResponse {
  return {
    orderId: order.orderId,
    customerId: order.customerId,
    status: order.status,
    totalAmount: Number(order.totalAmount),
    currency: order.currency,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt ?? undefined,
    confirmedAt: order.confirmedAt ?? undefined,
    shippedAt: order.shippedAt ?? undefined,
    deliveredAt: order.deliveredAt ?? undefined,
    cancelledAt: order.cancelledAt ?? undefined,
    refundedAt: order.refundedAt ?? undefined,
    deliveryAddress:
      order.deliveryStreetName !== null && order.deliveryZipCode !== null
        ? { streetName: order.deliveryStreetName, zipCode: order.deliveryZipCode }
        : undefined,
    items: items.map(toItemResponse),
    note: order.note ?? undefined,
    trackingNumber: order.trackingNumber ?? undefined,
    carrier: order.carrier ?? undefined,
    cancellationReason: order.cancellationReason ?? undefined,
    refundReason: order.refundReason ?? undefined,
  };
}
