import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CursorPageResponse, OffsetPageResponse } from '../../../paging/page-response';
import { ORDER_STATUSES } from '../../domain/order-status';

export class DeliveryAddressResponse {
  @ApiProperty()
  streetName: string;

  @ApiProperty()
  zipCode: string;
}

export class OrderItemResponse {
  @ApiProperty({ format: 'uuid' })
  itemId: string;

  @ApiProperty({ format: 'uuid' })
  productId: string;

  @ApiProperty()
  productName: string;

  @ApiProperty({ minimum: 1 })
  quantity: number;

  @ApiProperty({ example: 199.9, description: 'Frozen when the line was added.' })
  unitPrice: number;
}

const TIMESTAMP = { format: 'date-time', example: '2026-01-31T12:00:00Z' } as const;

export class OrderResponse {
  @ApiProperty({ format: 'uuid' })
  orderId: string;

  @ApiProperty({ format: 'uuid' })
  customerId: string;

  @ApiProperty({ enum: ORDER_STATUSES, enumName: 'OrderStatus' })
  status: string;

  @ApiProperty({ example: 399.8, description: 'Sum of unitPrice × quantity, at most 2 decimals.' })
  totalAmount: number;

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

  @ApiProperty({ type: [OrderItemResponse] })
  items: OrderItemResponse[];

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

export class OrderPageResponse extends OffsetPageResponse(OrderResponse, 'OrderPageResponse') {}

export class OrderCursorPageResponse extends CursorPageResponse(OrderResponse, 'OrderCursorPageResponse') {}

export class OrderItemPageResponse extends OffsetPageResponse(OrderItemResponse, 'OrderItemPageResponse') {}

/** The body of the deprecated `GET /api/v1/orders/{orderId}/status` (contract, Legacy status body). */
export class OrderStatusResponse {
  @ApiProperty({ enum: ORDER_STATUSES, enumName: 'OrderStatus' })
  status: string;
}
