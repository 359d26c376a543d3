import type { Product } from '../domain/product';
import type { ProductResponse } from './dto/product.dto';

/** The v1 product card. */
export function toProductResponse(p: Product): ProductResponse {
  return {
    productId: p.productId,
    name: p.name,
    price: Number(p.price),
    stock: p.stock,
    status: p.status,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt ?? undefined,
  };
}
