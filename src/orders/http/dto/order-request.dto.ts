import { ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { listOf, nested, RequestField, integer, text, uuid } from '../../../validation/fields';
import { ReadOnly } from '../../../validation/read-only.decorator';
import { MAX_LINE_QUANTITY, MAX_ORDER_LINES } from '../../domain/order';

/** The bounds of the order's text fields; the response DTOs declare the same. */
export const STREET_NAME = text({ min: 1, max: 200, example: 'Tverskaya 1' });
export const ZIP_CODE = text({ min: 1, max: 20, example: '125009' });
export const NOTE = text({ min: 1, max: 1000, multiline: true });
export const REASON = text({ min: 1, max: 500, multiline: true });
export const TRACKING_NUMBER = text({ min: 1, max: 100 });
export const CARRIER = text({ min: 1, max: 100 });
export const QUANTITY = integer({ min: 1, max: MAX_LINE_QUANTITY });

export class DeliveryAddressDto {
  @RequestField(STREET_NAME)
  streetName: string;

  @RequestField(ZIP_CODE)
  zipCode: string;
}

/** A line of a new order (`CreateOrderItem` of the contract). */
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
  @RequestField(REASON)
  reason: string;
}

export class ShipOrderRequest {
  @RequestField(TRACKING_NUMBER)
  trackingNumber: string;

  @RequestField(CARRIER)
  carrier: string;
}

export class RefundOrderRequest {
  @RequestField(REASON, { presence: 'optional' })
  reason?: string;
}
