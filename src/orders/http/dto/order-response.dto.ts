import { ApiProperty } from '@nestjs/swagger';
import { CursorPageResponse, OffsetPageResponse } from '../../../paging/page-response';
import {
  listOf,
  nested,
  oneOf,
  patterned,
  ResponseField,
  text,
  timestamp,
  uuid,
} from '../../../validation/fields';
import { MAX_ORDER_LINES } from '../../domain/order';
import { ORDER_STATUSES } from '../../domain/order-status';
import { CARRIER, NOTE, QUANTITY, REASON, STREET_NAME, TRACKING_NUMBER, ZIP_CODE } from './order-request.dto';

/** A product's name as frozen on a line: the bounds of the product's `name` (products/product.dto.ts). */
export const PRODUCT_NAME = text({ min: 1, max: 200 });
/** ISO 4217 code of the order's currency. */
export const CURRENCY = patterned({ pattern: /^[A-Z]{3}$/, max: 3, format: 'ISO 4217', example: 'RUB' });

export class DeliveryAddressResponse {
  @ResponseField(STREET_NAME)
  streetName: string;

  @ResponseField(ZIP_CODE)
  zipCode: string;
}

export class OrderItemResponse {
  @ResponseField(uuid())
  itemId: string;

  @ResponseField(uuid())
  productId: string;

  @ResponseField(PRODUCT_NAME)
  productName: string;

  @ResponseField(QUANTITY)
  quantity: number;

  @ApiProperty({ example: 199.9, description: 'Frozen when the line was added.' })
  unitPrice: number;
}

export class OrderResponse {
  @ResponseField(uuid())
  orderId: string;

  @ResponseField(uuid())
  customerId: string;

  @ResponseField(oneOf(ORDER_STATUSES, 'OrderStatus'))
  status: string;

  @ApiProperty({ example: 399.8, description: 'Sum of unitPrice × quantity, at most 2 decimals.' })
  totalAmount: number;

  @ResponseField(CURRENCY)
  currency: string;

  @ResponseField(timestamp())
  createdAt: string;

  @ResponseField(timestamp(), { optional: true, description: 'Present after an update.' })
  updatedAt?: string;

  @ResponseField(timestamp(), { optional: true })
  confirmedAt?: string;

  @ResponseField(timestamp(), { optional: true })
  shippedAt?: string;

  @ResponseField(timestamp(), { optional: true })
  deliveredAt?: string;

  @ResponseField(timestamp(), { optional: true })
  cancelledAt?: string;

  @ResponseField(timestamp(), { optional: true })
  refundedAt?: string;

  @ResponseField(nested(DeliveryAddressResponse), { optional: true })
  deliveryAddress?: DeliveryAddressResponse;

  @ResponseField(listOf(nested(OrderItemResponse), { max: MAX_ORDER_LINES }))
  items: OrderItemResponse[];

  @ResponseField(NOTE, { optional: true })
  note?: string;

  @ResponseField(TRACKING_NUMBER, { optional: true })
  trackingNumber?: string;

  @ResponseField(CARRIER, { optional: true })
  carrier?: string;

  @ResponseField(REASON, { optional: true })
  cancellationReason?: string;

  @ResponseField(REASON, { optional: true })
  refundReason?: string;
}

export class OrderPageResponse extends OffsetPageResponse(OrderResponse, 'OrderPageResponse') {}

export class OrderCursorPageResponse extends CursorPageResponse(OrderResponse, 'OrderCursorPageResponse') {}

export class OrderItemPageResponse extends OffsetPageResponse(OrderItemResponse, 'OrderItemPageResponse') {}

/** The body of the deprecated `GET /api/v1/orders/{orderId}/status` (contract, Legacy status body). */
export class OrderStatusResponse {
  @ResponseField(oneOf(ORDER_STATUSES, 'OrderStatus'))
  status: string;
}
