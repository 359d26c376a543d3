import { OffsetPageResponse } from '../../../../platform/paging/page-response';
import {
  decimal,
  INT32_MAX,
  integer,
  oneOf,
  RequestField,
  ResponseField,
  text,
  timestamp,
  uuid,
} from '../../../../platform/validation/fields';
import { PRODUCT_STATUSES, type ProductStatus } from '../../domain/product';

/** `numeric(12,2)`: at most 10 integer digits, 2 decimals. */
const PRICE = decimal({ min: 0, max: 9_999_999_999.99, decimals: 2, example: 199.9 });
/** An `integer` column. */
const STOCK = integer({ min: 0, max: INT32_MAX });
const NAME = text({ min: 1, max: 200 });
const STATUS = oneOf(PRODUCT_STATUSES, 'ProductStatus');

export class CreateProductRequest {
  @RequestField(NAME)
  name: string;

  @RequestField(PRICE, { description: 'At most 2 decimals.' })
  price: number;

  @RequestField(STOCK)
  stock: number;

  @RequestField(STATUS, { presence: 'optional', default: 'ACTIVE' })
  status?: ProductStatus;
}

/** Merge patch of a product; every field is required on the resource, so `null` is not accepted. */
export class PatchProductRequest {
  @RequestField(NAME, { presence: 'patch' })
  name?: string;

  @RequestField(PRICE, { presence: 'patch' })
  price?: number;

  @RequestField(STOCK, { presence: 'patch' })
  stock?: number;

  @RequestField(STATUS, { presence: 'patch' })
  status?: ProductStatus;
}

export class ProductResponse {
  @ResponseField(uuid())
  productId: string;

  @ResponseField(NAME)
  name: string;

  @ResponseField(PRICE)
  price: number;

  @ResponseField(STOCK)
  stock: number;

  @ResponseField(STATUS)
  status: string;

  @ResponseField(timestamp())
  createdAt: Date;

  @ResponseField(timestamp(), { optional: true })
  updatedAt?: Date;
}

export class ProductPageResponse extends OffsetPageResponse(ProductResponse, 'ProductPageResponse') {}
