import { CursorPageResponse, OffsetPageResponse } from '../../../paging/page-response';
import { listOf, nested, oneOf, patterned, ResponseField, timestamp, uuid } from '../../../validation/fields';
import { MAX_ORDER_LINES } from '../../domain/order';
import { ORDER_STATUSES } from '../../domain/order-status';
import { CARRIER, NOTE, QUANTITY, REASON, TRACKING_NUMBER } from './order-request.dto';
import { CURRENCY, DeliveryAddressResponse, PRODUCT_NAME } from './order-response.dto';

/**
 * The v2 payloads of orders (DECISIONS "Versioning"): the same order as v1, with money as `MoneyV2`
 * objects. `total` replaces v1's `totalAmount` and items' `unitPrice` is a `MoneyV2`; every other field
 * is v1's. Component names end in V2 so the two versions never share a schema that differs.
 */

/** `numeric(12,2)` as text: at most 10 integer digits, exactly 2 decimals. */
const MONEY_AMOUNT = patterned({
  pattern: /^[0-9]{1,10}\.[0-9]{2}$/,
  max: 13,
  format: 'decimal with 2 decimals',
  example: '12.50',
});

/** An amount of money: decimal text with exactly 2 decimals (never a binary float) and its currency. */
export class MoneyV2 {
  @ResponseField(MONEY_AMOUNT, { description: 'Decimal amount with exactly 2 decimals, as a string.' })
  amount: string;

  @ResponseField(CURRENCY, { description: 'ISO 4217 currency code.' })
  currency: string;
}

export class OrderItemV2Response {
  @ResponseField(uuid())
  itemId: string;

  @ResponseField(uuid())
  productId: string;

  @ResponseField(PRODUCT_NAME)
  productName: string;

  @ResponseField(QUANTITY)
  quantity: number;

  @ResponseField(nested(MoneyV2), { description: 'Frozen when the line was added.' })
  unitPrice: MoneyV2;
}

export class OrderV2Response {
  @ResponseField(uuid())
  orderId: string;

  @ResponseField(uuid())
  customerId: string;

  @ResponseField(oneOf(ORDER_STATUSES, 'OrderStatus'))
  status: string;

  @ResponseField(nested(MoneyV2), { description: 'Sum of unitPrice × quantity (v1: totalAmount).' })
  total: MoneyV2;

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

  @ResponseField(listOf(nested(OrderItemV2Response), { max: MAX_ORDER_LINES }))
  items: OrderItemV2Response[];

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

export class OrderV2PageResponse extends OffsetPageResponse(OrderV2Response, 'OrderV2PageResponse') {}

export class OrderV2CursorPageResponse extends CursorPageResponse(
  OrderV2Response,
  'OrderV2CursorPageResponse',
) {}
