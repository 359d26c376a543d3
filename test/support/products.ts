import { randomUUID } from 'node:crypto';
import { ApiClient, bodyWithStatus } from './http-client';

export const PRODUCTS = '/api/v1/products';

export type ProductStatus = 'ACTIVE' | 'DISCONTINUED';

/** The body of `POST /api/v1/products`. */
export interface ProductRequest {
  name: string;
  price: number;
  stock: number;
  status?: ProductStatus;
}

/** A product as the API answers it. */
export interface Product {
  productId: string;
  name: string;
  price: number;
  stock: number;
  status: ProductStatus;
  createdAt: string;
  updatedAt?: string;
}

/**
 * Adds a product through the API; `client` must be an ADMIN's. Unnamed fields get defaults (a unique
 * name, price 10, stock 100). Fails unless the product is created (201).
 */
export async function createProduct(
  client: ApiClient,
  overrides: Partial<ProductRequest> = {},
): Promise<Product> {
  const body: ProductRequest = { name: `Product ${randomUUID()}`, price: 10, stock: 100, ...overrides };
  const res = await client('POST', PRODUCTS, { body });
  return bodyWithStatus<Product>(res, 201, `POST ${PRODUCTS}`);
}

/** The stock of a product now, as `GET /api/v1/products/{productId}` answers it. */
export async function stockOf(client: ApiClient, productId: string): Promise<number> {
  return (await client('GET', `${PRODUCTS}/${productId}`)).json<Product>().stock;
}
