import { ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { listOf, nested, RequestField, integer, text, uuid } from '../../../../platform/validation/fields';
import { ReadOnly } from '../../../../platform/validation/read-only.decorator';
import { LINE_FIELDS, ORDER_FIELDS } from '../../domain/order-fields';

/** The bounds of the fields requests set: the declaration's (domain/order-fields.ts), as the responses'. */
const { streetName, zipCode } = ORDER_FIELDS.deliveryAddress.members;
const STREET_NAME = text(streetName.bounds);
const ZIP_CODE = text(zipCode.bounds);
const NOTE = text(ORDER_FIELDS.note.bounds);
const TRACKING_NUMBER = text(ORDER_FIELDS.trackingNumber.bounds);
const CARRIER = text(ORDER_FIELDS.carrier.bounds);
const CANCELLATION_REASON = text(ORDER_FIELDS.cancellationReason.bounds);
const REFUND_REASON = text(ORDER_FIELDS.refundReason.bounds);
const QUANTITY = integer(LINE_FIELDS.quantity.bounds);
const MAX_ORDER_LINES = ORDER_FIELDS.items.max;

export class DeliveryAddressDto {
  @RequestField(STREET_NAME)
  streetName: string;

  @RequestField(ZIP_CODE)
  zipCode: string;
}

/** A line of a new order (`CreateOrderItem`). */
export class CreateOrderItemDto {
  @RequestField(uuid())
  productId: string;

  @RequestField(QUANTITY)
  quantity: number;
}

/** What an order holds that its owner sets: lines, delivery address, note (create and full replacement). */
class OrderContentFields {
  @RequestField(listOf(nested(CreateOrderItemDto), { max: MAX_ORDER_LINES }), {
    presence: 'optional',
    default: [],
  })
  items?: CreateOrderItemDto[];

  @RequestField(nested(DeliveryAddressDto), { presence: 'optional' })
  deliveryAddress?: DeliveryAddressDto;

  @RequestField(NOTE, { presence: 'optional' })
  note?: string;
}

export class CreateOrderRequest extends OrderContentFields {
  @RequestField(uuid(), {
    presence: 'optional',
    description: 'Defaults to the caller; only an admin may name someone else.',
  })
  customerId?: string;
}

/** Fields of the order resource that no request body may set. */
class OrderReadOnlyFields {
  @ApiPropertyOptional({ readOnly: true })
  @ReadOnly()
  orderId?: unknown;

  @ApiPropertyOptional({ readOnly: true })
  @ReadOnly()
  status?: unknown;

  @ApiPropertyOptional({ readOnly: true })
  @ReadOnly()
  totalAmount?: unknown;

  @ApiPropertyOptional({ readOnly: true })
  @ReadOnly()
  currency?: unknown;

  @ApiPropertyOptional({ readOnly: true })
  @ReadOnly()
  createdAt?: unknown;

  @ApiPropertyOptional({ readOnly: true })
  @ReadOnly()
  updatedAt?: unknown;
}

/** `PUT /orders/{orderId}`: replaces items, delivery address and note; absent means removed. */
export class ReplaceOrderRequest extends IntersectionType(OrderContentFields, OrderReadOnlyFields) {
  @ApiPropertyOptional({ readOnly: true })
  @ReadOnly()
  customerId?: unknown;
}

/** Delivery address inside a merge patch: each field may be set or (with null) removed. */
export class DeliveryAddressPatchDto {
  @RequestField(STREET_NAME, { presence: 'nullable' })
  streetName?: string | null;

  @RequestField(ZIP_CODE, { presence: 'nullable' })
  zipCode?: string | null;
}

/**
 * `PATCH /orders/{orderId}` (JSON Merge Patch, RFC 7396): `note` and `deliveryAddress`; `null` removes.
 * Status and items change only through actions and the items endpoints.
 */
export class PatchOrderRequest extends OrderReadOnlyFields {
  @RequestField(NOTE, { presence: 'nullable' })
  note?: string | null;

  @RequestField(nested(DeliveryAddressPatchDto), {
    presence: 'nullable',
    description:
      "Merged into the order's address (null removes it). The result has both fields or none: a patch " +
      'that would leave one is 400 with REQUIRED on the other.',
  })
  deliveryAddress?: DeliveryAddressPatchDto | null;

  @ApiPropertyOptional({ readOnly: true, description: 'Items change through /orders/{orderId}/items.' })
  @ReadOnly()
  items?: unknown;

  @ApiPropertyOptional({ readOnly: true })
  @ReadOnly()
  customerId?: unknown;
}

export class AddOrderItemRequest extends CreateOrderItemDto {}

export class CancelOrderRequest {
  @RequestField(CANCELLATION_REASON)
  reason: string;
}

export class ShipOrderRequest {
  @RequestField(TRACKING_NUMBER)
  trackingNumber: string;

  @RequestField(CARRIER)
  carrier: string;
}

export class RefundOrderRequest {
  @RequestField(REFUND_REASON, { presence: 'optional' })
  reason?: string;
}
