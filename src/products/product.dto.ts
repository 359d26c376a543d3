import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsDefined,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Length,
  Max,
  Min,
  ValidateIf,
} from 'class-validator';
import { OffsetPageResponse } from '../paging/page-response';
import { PRODUCT_STATUSES, type ProductStatus } from './product.entity';

const MAX_PRICE = 9_999_999_999.99;
const MAX_STOCK = 2_147_483_647;

export class CreateProductRequest {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @IsDefined()
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiProperty({ minimum: 0, maximum: MAX_PRICE, example: 199.9, description: 'At most 2 decimals.' })
  @IsDefined()
  @IsNumber({ maxDecimalPlaces: 2, allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(MAX_PRICE)
  price: number;

  @ApiProperty({ minimum: 0 })
  @IsDefined()
  @IsInt()
  @Min(0)
  @Max(MAX_STOCK)
  stock: number;

  @ApiPropertyOptional({ enum: PRODUCT_STATUSES, enumName: 'ProductStatus', default: 'ACTIVE' })
  @IsOptional()
  @IsIn(PRODUCT_STATUSES)
  status?: ProductStatus;
}

/** In a merge patch, absent leaves a field alone; `null` (remove) is validated, and fails on required fields. */
const PresentOrAbsent = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

/** Merge patch of a product; every field is required on the resource, so `null` is not accepted. */
export class PatchProductRequest {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @PresentOrAbsent()
  @IsDefined()
  @IsString()
  @Length(1, 200)
  name?: string;

  @ApiPropertyOptional({ minimum: 0, maximum: MAX_PRICE })
  @PresentOrAbsent()
  @IsDefined()
  @IsNumber({ maxDecimalPlaces: 2, allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(MAX_PRICE)
  price?: number;

  @ApiPropertyOptional({ minimum: 0 })
  @PresentOrAbsent()
  @IsDefined()
  @IsInt()
  @Min(0)
  @Max(MAX_STOCK)
  stock?: number;

  @ApiPropertyOptional({ enum: PRODUCT_STATUSES, enumName: 'ProductStatus' })
  @PresentOrAbsent()
  @IsDefined()
  @IsIn(PRODUCT_STATUSES)
  status?: ProductStatus;
}

export class ProductResponse {
  @ApiProperty({ format: 'uuid' })
  productId: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ example: 199.9 })
  price: number;

  @ApiProperty({ minimum: 0 })
  stock: number;

  @ApiProperty({ enum: PRODUCT_STATUSES, enumName: 'ProductStatus' })
  status: string;

  @ApiProperty({ format: 'date-time', example: '2026-01-31T12:00:00Z' })
  createdAt: Date;

  @ApiPropertyOptional({ format: 'date-time', example: '2026-01-31T12:00:00Z' })
  updatedAt?: Date;
}

export class ProductPageResponse extends OffsetPageResponse(ProductResponse, 'ProductPageResponse') {}
