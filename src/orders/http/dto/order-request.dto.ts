import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { ReadOnly } from '../../../validation/read-only.decorator';

export const MAX_ORDER_LINES = 100;
export const MAX_LINE_QUANTITY = 1_000_000;

export class DeliveryAddressDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Tverskaya 1' })
  @IsDefined()
  @IsString()
  @Length(1, 200)
  streetName: string;

  @ApiProperty({ minLength: 1, maxLength: 20, example: '125009' })
  @IsDefined()
  @IsString()
  @Length(1, 20)
  zipCode: string;
}

/** A line of a new order (`CreateOrderItem` of the contract). */
export class CreateOrderItemDto {
  @ApiProperty({ format: 'uuid' })
  @IsDefined()
  @IsUUID()
  productId: string;

  @ApiProperty({ minimum: 1, maximum: MAX_LINE_QUANTITY })
  @IsDefined()
  @IsInt()
  @Min(1)
  @Max(MAX_LINE_QUANTITY)
  quantity: number;
}

/** What an order holds that its owner sets: lines, delivery address, note (create and full replacement). */
class OrderContentFields {
  @ApiPropertyOptional({ type: [CreateOrderItemDto], maxItems: MAX_ORDER_LINES, default: [] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_ORDER_LINES)
  @ValidateNested({ each: true })
  @Type(() => CreateOrderItemDto)
  items?: CreateOrderItemDto[];

  @ApiPropertyOptional({ type: DeliveryAddressDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => DeliveryAddressDto)
  deliveryAddress?: DeliveryAddressDto;

  @ApiPropertyOptional({ minLength: 1, maxLength: 1000 })
  @IsOptional()
  @IsString()
  @Length(1, 1000)
  note?: string;
}

export class CreateOrderRequest extends OrderContentFields {
  @ApiPropertyOptional({
    format: 'uuid',
    description: 'Defaults to the caller; only an admin may name someone else.',
  })
  @IsOptional()
  @IsUUID()
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
  @ApiPropertyOptional({ minLength: 1, maxLength: 200, nullable: true })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  streetName?: string | null;

  @ApiPropertyOptional({ minLength: 1, maxLength: 20, nullable: true })
  @IsOptional()
  @IsString()
  @Length(1, 20)
  zipCode?: string | null;
}

/**
 * `PATCH /orders/{orderId}` (JSON Merge Patch, RFC 7396): `note` and `deliveryAddress`; `null` removes.
 * Status and items change only through actions and the items endpoints.
 */
export class PatchOrderRequest extends OrderReadOnlyFields {
  @ApiPropertyOptional({ minLength: 1, maxLength: 1000, nullable: true })
  @IsOptional()
  @IsString()
  @Length(1, 1000)
  note?: string | null;

  @ApiPropertyOptional({ type: DeliveryAddressPatchDto, nullable: true })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => DeliveryAddressPatchDto)
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
  @ApiProperty({ minLength: 1, maxLength: 500 })
  @IsDefined()
  @IsString()
  @Length(1, 500)
  reason: string;
}

export class ShipOrderRequest {
  @ApiProperty({ minLength: 1, maxLength: 100 })
  @IsDefined()
  @IsString()
  @Length(1, 100)
  trackingNumber: string;

  @ApiProperty({ minLength: 1, maxLength: 100 })
  @IsDefined()
  @IsString()
  @Length(1, 100)
  carrier: string;
}

export class RefundOrderRequest {
  @ApiPropertyOptional({ minLength: 1, maxLength: 500 })
  @IsOptional()
  @IsString()
  @Length(1, 500)
  reason?: string;
}
