/** A product's sale status: a discontinued product stays in the catalogue but cannot be ordered. */
export const PRODUCT_STATUSES = ['ACTIVE', 'DISCONTINUED'] as const;
export type ProductStatus = (typeof PRODUCT_STATUSES)[number];

/** A product of the catalogue. */
export interface Product {
  productId: string;
  name: string;
  /** `numeric(12,2)` as PostgreSQL prints it: kept exact, converted only for output. */
  price: string;
  stock: number;
  status: ProductStatus;
  createdAt: Date;
  updatedAt: Date | null;
}
