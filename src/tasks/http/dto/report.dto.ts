import { ApiProperty } from '@nestjs/swagger';
import { ORDER_STATUSES, type OrderStatus } from '../../../orders/domain/order-status';

const MONEY = { example: 1234.5, description: 'At most 2 decimals.' } as const;

export class ReportStatusFigure {
  @ApiProperty({ enum: ORDER_STATUSES, enumName: 'OrderStatus' })
  status: OrderStatus;

  @ApiProperty({ type: 'integer', minimum: 0 })
  orderCount: number;

  @ApiProperty(MONEY)
  totalAmount: number;
}

export class ReportProductFigure {
  @ApiProperty({ format: 'uuid' })
  productId: string;

  @ApiProperty({ description: 'As frozen on the order lines.' })
  productName: string;

  @ApiProperty({ type: 'integer', minimum: 0 })
  quantity: number;

  @ApiProperty(MONEY)
  amount: number;
}

export class ReportDayFigure {
  @ApiProperty({ format: 'date' })
  date: string;

  @ApiProperty({ type: 'integer', minimum: 0 })
  orderCount: number;

  @ApiProperty(MONEY)
  totalAmount: number;
}

/** `GET /reports/{reportId}`: orders created in the range, whatever their status now. */
export class ReportResponse {
  @ApiProperty({ format: 'uuid' })
  reportId: string;

  @ApiProperty({ format: 'date' })
  dateFrom: string;

  @ApiProperty({ format: 'date' })
  dateTo: string;

  @ApiProperty({ format: 'date-time', example: '2026-01-31T12:00:00Z' })
  generatedAt: Date;

  @ApiProperty({ example: 'RUB' })
  currency: string;

  @ApiProperty({ type: 'integer', minimum: 0 })
  orderCount: number;

  @ApiProperty(MONEY)
  totalAmount: number;

  @ApiProperty({ type: [ReportStatusFigure], description: 'Statuses with orders in the range.' })
  byStatus: ReportStatusFigure[];

  @ApiProperty({ type: [ReportProductFigure], description: 'At most 10, by quantity ordered.' })
  topProductsByQuantity: ReportProductFigure[];

  @ApiProperty({ type: [ReportProductFigure], description: 'At most 10, by amount ordered.' })
  topProductsByAmount: ReportProductFigure[];

  @ApiProperty({ type: [ReportDayFigure], description: 'Every day of the range, in order.' })
  daily: ReportDayFigure[];
}
