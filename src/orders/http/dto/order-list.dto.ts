import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsISO8601,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { MAX_PAGE_SIZE } from '../../../paging/offset-page';
import { ToArray } from '../../../validation/to-array.decorator';
import { ORDER_STATUSES, type OrderStatus } from '../../domain/order-status';
import { SORT_FIELDS } from '../../domain/order-list-criteria';
import { NotAbove, NotWith, SortKeys, UniqueBy } from '../../../validation/cross-field';
import { QueryNumber } from '../../../validation/query-number.decorator';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_FORMAT = { context: { format: 'YYYY-MM-DD' } };
const MAX_LIST_VALUES = 1000;

/** Query of `GET /api/v1/orders` (contract, List query parameters). */
export class ListOrdersQuery {
  @ApiPropertyOptional({
    enum: ORDER_STATUSES,
    enumName: 'OrderStatus',
    isArray: true,
    description: 'Repeat for several values (?status=A&status=B); a comma-separated value is invalid.',
  })
  @IsOptional()
  @ToArray()
  @ArrayMaxSize(ORDER_STATUSES.length)
  @IsIn(ORDER_STATUSES, { each: true })
  status?: OrderStatus[];

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  customerId?: string;

  @NotAbove('dateTo')
  @ApiPropertyOptional({ format: 'date', description: 'Inclusive, UTC calendar date of createdAt.' })
  @IsOptional()
  @Matches(DATE, DATE_FORMAT)
  @IsISO8601({ strict: true }, DATE_FORMAT)
  dateFrom?: string;

  @ApiPropertyOptional({ format: 'date', description: 'Inclusive, UTC calendar date of createdAt.' })
  @IsOptional()
  @Matches(DATE, DATE_FORMAT)
  @IsISO8601({ strict: true }, DATE_FORMAT)
  dateTo?: string;

  @NotAbove('amountTo')
  @ApiPropertyOptional({ minimum: 0, description: 'Inclusive lower bound of totalAmount.' })
  @IsOptional()
  @QueryNumber()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  amountFrom?: number;

  @ApiPropertyOptional({ minimum: 0, description: 'Inclusive upper bound of totalAmount.' })
  @IsOptional()
  @QueryNumber()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  amountTo?: number;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 200,
    description: 'Case-insensitive text in note, item names, tracking number.',
  })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  q?: string;

  @SortKeys(SORT_FIELDS)
  @ApiPropertyOptional({
    isArray: true,
    type: String,
    example: ['createdAt,desc'],
    description: `\`<field>,<asc|desc>\`, repeatable; fields ${SORT_FIELDS.join(', ')}; default createdAt,desc; orderId breaks ties.`,
  })
  @IsOptional()
  @ToArray()
  @ArrayMaxSize(SORT_FIELDS.length)
  @IsString({ each: true })
  sort?: string[];

  @ApiPropertyOptional({
    minimum: 1,
    default: 1,
    description:
      'Offset paging, first page is 1. Deep pages get slower (the database skips the rows before them): ' +
      'use `cursor` to walk far into a large list.',
  })
  @IsOptional()
  @QueryNumber()
  @IsInt()
  @Min(1)
  page?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 20 })
  @IsOptional()
  @QueryNumber()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  size?: number;

  @NotWith('page')
  @ApiPropertyOptional({
    description:
      'Opaque; selects cursor paging (empty for the first chunk). Pass back nextCursor/prevCursor as issued.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  cursor?: string;
}

export class DateRangeDto {
  @NotAbove('to')
  @ApiPropertyOptional({ format: 'date' })
  @IsOptional()
  @Matches(DATE, DATE_FORMAT)
  @IsISO8601({ strict: true }, DATE_FORMAT)
  from?: string;

  @ApiPropertyOptional({ format: 'date' })
  @IsOptional()
  @Matches(DATE, DATE_FORMAT)
  @IsISO8601({ strict: true }, DATE_FORMAT)
  to?: string;
}

export class AmountRangeDto {
  @NotAbove('to')
  @ApiPropertyOptional({ minimum: 0 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  from?: number;

  @ApiPropertyOptional({ minimum: 0 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  to?: number;
}

export class CustomerCriteriaDto {
  @ApiPropertyOptional({ type: [Number] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_LIST_VALUES)
  @IsInt({ each: true })
  regionIds?: number[];

  @ApiPropertyOptional({ minLength: 1, maxLength: 50 })
  @IsOptional()
  @IsString()
  @Length(1, 50)
  segment?: string;
}

export class SortSpecDto {
  @ApiProperty({ enum: SORT_FIELDS, enumName: 'OrderSortField' })
  @IsDefined()
  @IsIn(SORT_FIELDS)
  field: (typeof SORT_FIELDS)[number];

  @ApiProperty({ enum: ['ASC', 'DESC'], enumName: 'SortDirection' })
  @IsDefined()
  @IsIn(['ASC', 'DESC'])
  direction: 'ASC' | 'DESC';
}

/** Body of `POST /api/v1/orders/search` (contract, Search request body, plus `q` and `customerIds`). */
export class SearchOrdersRequest {
  @ApiPropertyOptional({ enum: ORDER_STATUSES, enumName: 'OrderStatus', isArray: true })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(ORDER_STATUSES.length)
  @IsIn(ORDER_STATUSES, { each: true })
  statuses?: OrderStatus[];

  @ApiPropertyOptional({ type: [String], format: 'uuid' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_LIST_VALUES)
  @IsUUID(undefined, { each: true })
  customerIds?: string[];

  @ApiPropertyOptional({ type: DateRangeDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => DateRangeDto)
  dateRange?: DateRangeDto;

  @ApiPropertyOptional({ type: CustomerCriteriaDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CustomerCriteriaDto)
  customer?: CustomerCriteriaDto;

  @ApiPropertyOptional({ type: AmountRangeDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => AmountRangeDto)
  totalAmount?: AmountRangeDto;

  @UniqueBy('field')
  @ApiPropertyOptional({ type: [SortSpecDto] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(SORT_FIELDS.length)
  @ValidateNested({ each: true })
  @Type(() => SortSpecDto)
  sort?: SortSpecDto[];

  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  q?: string;

  @ApiPropertyOptional({ minimum: 1, default: 1 })
  @IsOptional()
  @IsInt()
  @Min(1)
  page?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 20 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  size?: number;
}
