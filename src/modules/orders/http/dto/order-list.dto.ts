import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsOptional, IsString, MaxLength } from 'class-validator';
import { PAGE, PAGE_SIZE } from '../../../../platform/paging/offset-page';
import { MAX_CURSOR_LENGTH } from '../../../../platform/paging/page-response';
import {
  date,
  INT32_MAX,
  integer,
  listOf,
  nested,
  number,
  oneOf,
  RequestField,
  text,
  uuid,
} from '../../../../platform/validation/fields';
import { ToArray } from '../../../../platform/validation/to-array.decorator';
import { ORDER_STATUSES, type OrderStatus } from '../../domain/order-status';
import { SORT_FIELDS } from '../../domain/order-list-criteria';
import { NotAbove, NotWith, SortKeys, UniqueBy } from '../../../../platform/validation/cross-field';
import { QueryNumber } from '../../../../platform/validation/query-number.decorator';

const MAX_LIST_VALUES = 1000;
const ORDER_STATUS = oneOf(ORDER_STATUSES, 'OrderStatus');
const QUERY_TEXT = text({ min: 1, max: 200 });
/** An inclusive bound of totalAmount. */
const AMOUNT = number({ min: 0 });
/** Region ids are non-negative `integer` columns, as users set theirs (users/user.dto.ts). */
const REGION_ID = integer({ min: 0, max: INT32_MAX });
const SEGMENT = text({ min: 1, max: 50 });
/** `<field>,<asc|desc>`: checked when the query becomes criteria (order-list-query.ts, INVALID_QUERY). */
const SORT_PARAMETER = `^(${SORT_FIELDS.join('|')}),(asc|desc)$`;
/** A cursor the service issued (CursorCodec refuses any other as INVALID_CURSOR), or empty for the first chunk. */
const CURSOR_PARAMETER = '^([A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+)?$';

/** Query of `GET /api/v1/orders`. */
export class ListOrdersQuery {
  @RequestField(listOf(ORDER_STATUS, { max: ORDER_STATUSES.length }), {
    presence: 'optional',
    description: 'Repeat for several values (?status=A&status=B); a comma-separated value is invalid.',
  })
  @ToArray()
  status?: OrderStatus[];

  @RequestField(uuid(), { presence: 'optional' })
  customerId?: string;

  @NotAbove('dateTo')
  @RequestField(date(), { presence: 'optional', description: 'Inclusive, UTC calendar date of createdAt.' })
  dateFrom?: string;

  @RequestField(date(), { presence: 'optional', description: 'Inclusive, UTC calendar date of createdAt.' })
  dateTo?: string;

  @NotAbove('amountTo')
  @RequestField(AMOUNT, { presence: 'optional', description: 'Inclusive lower bound of totalAmount.' })
  @QueryNumber()
  amountFrom?: number;

  @RequestField(AMOUNT, { presence: 'optional', description: 'Inclusive upper bound of totalAmount.' })
  @QueryNumber()
  amountTo?: number;

  @RequestField(QUERY_TEXT, {
    presence: 'optional',
    description: 'Case-insensitive text in note, item names, tracking number.',
  })
  q?: string;

  @SortKeys(SORT_FIELDS)
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', pattern: SORT_PARAMETER, maxLength: 'totalAmount,desc'.length },
    maxItems: SORT_FIELDS.length,
    example: ['createdAt,desc'],
    description: `\`<field>,<asc|desc>\`, repeatable; fields ${SORT_FIELDS.join(', ')}; default createdAt,desc; orderId breaks ties.`,
  })
  @IsOptional()
  @ToArray()
  @ArrayMaxSize(SORT_FIELDS.length)
  @IsString({ each: true })
  sort?: string[];

  @RequestField(PAGE, {
    presence: 'optional',
    default: 1,
    description:
      'Offset paging, first page is 1. Deep pages get slower (the database skips the rows before them): ' +
      'use `cursor` to walk far into a large list.',
  })
  @QueryNumber()
  page?: number;

  @RequestField(PAGE_SIZE, { presence: 'optional', default: 20 })
  @QueryNumber()
  size?: number;

  @NotWith('page')
  @ApiPropertyOptional({
    type: 'string',
    pattern: CURSOR_PARAMETER,
    maxLength: MAX_CURSOR_LENGTH,
    description:
      'Opaque; selects cursor paging (empty for the first chunk). Pass back nextCursor/prevCursor as issued.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_CURSOR_LENGTH)
  cursor?: string;
}

export class DateRangeDto {
  @NotAbove('to')
  @RequestField(date(), { presence: 'optional' })
  from?: string;

  @RequestField(date(), { presence: 'optional' })
  to?: string;
}

export class AmountRangeDto {
  @NotAbove('to')
  @RequestField(AMOUNT, { presence: 'optional' })
  from?: number;

  @RequestField(AMOUNT, { presence: 'optional' })
  to?: number;
}

export class CustomerCriteriaDto {
  @RequestField(listOf(REGION_ID, { max: MAX_LIST_VALUES }), { presence: 'optional' })
  regionIds?: number[];

  @RequestField(SEGMENT, { presence: 'optional' })
  segment?: string;
}

export class SortSpecDto {
  @RequestField(oneOf(SORT_FIELDS, 'OrderSortField'))
  field: (typeof SORT_FIELDS)[number];

  @RequestField(oneOf(['ASC', 'DESC'], 'SortDirection'))
  direction: 'ASC' | 'DESC';
}

/** Body of `POST /api/v1/orders/search`: the filters of the list's query, as a structured body. */
export class SearchOrdersRequest {
  @RequestField(listOf(ORDER_STATUS, { max: ORDER_STATUSES.length }), { presence: 'optional' })
  statuses?: OrderStatus[];

  @RequestField(listOf(uuid(), { max: MAX_LIST_VALUES }), { presence: 'optional' })
  customerIds?: string[];

  @RequestField(nested(DateRangeDto), { presence: 'optional' })
  dateRange?: DateRangeDto;

  @RequestField(nested(CustomerCriteriaDto), { presence: 'optional' })
  customer?: CustomerCriteriaDto;

  @RequestField(nested(AmountRangeDto), { presence: 'optional' })
  totalAmount?: AmountRangeDto;

  @UniqueBy('field')
  @RequestField(listOf(nested(SortSpecDto), { max: SORT_FIELDS.length }), { presence: 'optional' })
  sort?: SortSpecDto[];

  @RequestField(QUERY_TEXT, { presence: 'optional' })
  q?: string;

  @RequestField(PAGE, { presence: 'optional', default: 1 })
  page?: number;

  @RequestField(PAGE_SIZE, { presence: 'optional', default: 20 })
  size?: number;
}
