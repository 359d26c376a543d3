import type { ProductResponse } from './product.dto';
import type { ProductEntity } from './product.entity';

/** The v1 product card. */
export function toProductResponse(p: ProductEntity): ProductResponse {
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
