import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CursorPageResponse, OffsetPageResponse } from '../../../paging/page-response';
import { ORDER_STATUSES } from '../../domain/order-status';
import { DeliveryAddressResponse } from './order-response.dto';

/**
 * The v2 payloads of orders (DECISIONS "Versioning"): the same order as v1, with money as `MoneyV2`
 * objects. `total` replaces v1's `totalAmount` and items' `unitPrice` is a `MoneyV2`; every other field
 * is v1's. Component names end in V2 so the two versions never share a schema that differs.
 */

/** An amount of money: decimal text with exactly 2 decimals (never a binary float) and its currency. */
export class MoneyV2 {
  @ApiProperty({
    pattern: '^[0-9]+\\.[0-9]{2}$',
    example: '12.50',
    description: 'Decimal amount with exactly 2 decimals, as a string.',
  })
  amount: string;

  @ApiProperty({ example: 'RUB', description: 'ISO 4217 currency code.' })
  currency: string;
}

export class OrderItemV2Response {
  @ApiProperty({ format: 'uuid' })
  itemId: string;

  @ApiProperty({ format: 'uuid' })
  productId: string;

  @ApiProperty()
  productName: string;

  @ApiProperty({ minimum: 1 })
  quantity: number;

  @ApiProperty({ type: MoneyV2, description: 'Frozen when the line was added.' })
  unitPrice: MoneyV2;
}

const TIMESTAMP = { format: 'date-time', example: '2026-01-31T12:00:00Z' } as const;

export class OrderV2Response {
  @ApiProperty({ format: 'uuid' })
  orderId: string;

  @ApiProperty({ format: 'uuid' })
  customerId: string;

  @ApiProperty({ enum: ORDER_STATUSES, enumName: 'OrderStatus' })
  status: string;

  @ApiProperty({ type: MoneyV2, description: 'Sum of unitPrice × quantity (v1: totalAmount).' })
  total: MoneyV2;

  @ApiProperty({ example: 'RUB' })
  currency: string;

  @ApiProperty(TIMESTAMP)
  createdAt: Date;

  @ApiPropertyOptional({ ...TIMESTAMP, description: 'Present after an update.' })
  updatedAt?: Date;

  @ApiPropertyOptional(TIMESTAMP)
  confirmedAt?: Date;

  @ApiPropertyOptional(TIMESTAMP)
  shippedAt?: Date;

  @ApiPropertyOptional(TIMESTAMP)
  deliveredAt?: Date;

  @ApiPropertyOptional(TIMESTAMP)
  cancelledAt?: Date;

  @ApiPropertyOptional(TIMESTAMP)
  refundedAt?: Date;

  @ApiPropertyOptional({ type: DeliveryAddressResponse })
  deliveryAddress?: DeliveryAddressResponse;

  @ApiProperty({ type: [OrderItemV2Response] })
  items: OrderItemV2Response[];

  @ApiPropertyOptional()
  note?: string;

  @ApiPropertyOptional()
  trackingNumber?: string;

  @ApiPropertyOptional()
  carrier?: string;

  @ApiPropertyOptional()
  cancellationReason?: string;

  @ApiPropertyOptional()
  refundReason?: string;
}

export class OrderV2PageResponse extends OffsetPageResponse(OrderV2Response, 'OrderV2PageResponse') {}

export class OrderV2CursorPageResponse extends CursorPageResponse(
  OrderV2Response,
  'OrderV2CursorPageResponse',
) {}
