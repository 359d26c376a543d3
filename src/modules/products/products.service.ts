import { Injectable } from '@nestjs/common';
import { Transactions } from '../../platform/database/transactions';
import { OffsetPage, offsetOf, offsetPage } from '../../platform/paging/offset-page';
import { AppException } from '../../platform/problem/app-exception';
import type { Product, ProductStatus } from './domain/product';
import { ProductChanges, ProductsRepository } from './persistence/products.repository';

export interface ProductDraft {
  name: string;
  price: number;
  stock: number;
  status?: ProductStatus;
}

export type ProductPatch = Partial<ProductDraft>;

/** The catalogue orders are built from. */
@Injectable()
export class ProductsService {
  constructor(
    private readonly products: ProductsRepository,
    private readonly transactions: Transactions,
  ) {}

  async list(query: { page: number; size: number }): Promise<OffsetPage<Product>> {
    const { products, total } = await this.products.page({ limit: query.size, offset: offsetOf(query) });
    return offsetPage(products, total, query);
  }

  async get(productId: string): Promise<Product> {
    const product = await this.products.read(productId);
    if (!product) throw new AppException('PRODUCT_NOT_FOUND', { args: { productId } });
    return product;
  }

  create(draft: ProductDraft): Promise<Product> {
    return this.transactions.run((tx) =>
      this.products.insert(tx, {
        name: draft.name,
        price: draft.price.toFixed(2),
        stock: draft.stock,
        status: draft.status ?? 'ACTIVE',
      }),
    );
  }

  async patch(productId: string, patch: ProductPatch): Promise<Product> {
    const changes: ProductChanges = {};
    if (patch.name !== undefined) changes.name = patch.name;
    if (patch.price !== undefined) changes.price = patch.price.toFixed(2);
    if (patch.stock !== undefined) changes.stock = patch.stock;
    if (patch.status !== undefined) changes.status = patch.status;
    if (Object.keys(changes).length === 0) return this.get(productId);
    const updated = await this.transactions.run((tx) => this.products.update(tx, productId, changes));
    if (!updated) throw new AppException('PRODUCT_NOT_FOUND', { args: { productId } });
    return updated;
  }
}
