import { ApiProperty } from '@nestjs/swagger';
import { ORDER_STATUSES, type OrderStatus } from '../../../orders/domain/order-status';
import {
  date,
  integer,
  listOf,
  nested,
  oneOf,
  patterned,
  ResponseField,
  text,
  timestamp,
  uuid,
} from '../../../../platform/validation/fields';
import { TOP_PRODUCTS } from '../../domain/report';
import { MAX_REPORT_DAYS } from '../../domain/task';

const MONEY = { example: 1234.5, description: 'At most 2 decimals.' } as const;
/** Counts of orders and units: a JSON number carries them exactly up to 2^53 − 1. */
const COUNT = integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
/** A product's name as frozen on the order lines (the bounds of products' `name`). */
const PRODUCT_NAME = text({ min: 1, max: 200 });
const CURRENCY = patterned({ pattern: /^[A-Z]{3}$/, max: 3, format: 'ISO 4217', example: 'RUB' });

export class ReportStatusFigure {
  @ResponseField(oneOf(ORDER_STATUSES, 'OrderStatus'))
  status: OrderStatus;

  @ResponseField(COUNT)
  orderCount: number;

  @ApiProperty(MONEY)
  totalAmount: number;
}

export class ReportProductFigure {
  @ResponseField(uuid())
  productId: string;

  @ResponseField(PRODUCT_NAME, { description: 'As frozen on the order lines.' })
  productName: string;

  @ResponseField(COUNT)
  quantity: number;

  @ApiProperty(MONEY)
  amount: number;
}

export class ReportDayFigure {
  @ResponseField(date())
  date: string;

  @ResponseField(COUNT)
  orderCount: number;

  @ApiProperty(MONEY)
  totalAmount: number;
}

/** `GET /reports/{reportId}`: orders created in the range, whatever their status now. */
export class ReportResponse {
  @ResponseField(uuid())
  reportId: string;

  @ResponseField(date())
  dateFrom: string;

  @ResponseField(date())
  dateTo: string;

  @ResponseField(timestamp())
  generatedAt: Date;

  @ResponseField(CURRENCY)
  currency: string;

  @ResponseField(COUNT)
  orderCount: number;

  @ApiProperty(MONEY)
  totalAmount: number;

  @ResponseField(listOf(nested(ReportStatusFigure), { max: ORDER_STATUSES.length }), {
    description: 'Statuses with orders in the range.',
  })
  byStatus: ReportStatusFigure[];

  @ResponseField(listOf(nested(ReportProductFigure), { max: TOP_PRODUCTS }), {
    description: `At most ${TOP_PRODUCTS}, by quantity ordered.`,
  })
  topProductsByQuantity: ReportProductFigure[];

  @ResponseField(listOf(nested(ReportProductFigure), { max: TOP_PRODUCTS }), {
    description: `At most ${TOP_PRODUCTS}, by amount ordered.`,
  })
  topProductsByAmount: ReportProductFigure[];

  @ResponseField(listOf(nested(ReportDayFigure), { max: MAX_REPORT_DAYS }), {
    description: 'Every day of the range, in order.',
  })
  daily: ReportDayFigure[];
}
