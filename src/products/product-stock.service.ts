import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AppException } from '../problem/app-exception';
import type { ProductStatus } from './product.entity';
import { ProductsRepository } from './products.repository';

/** What other modules may know of a product to sell it: a snapshot, not the entity. */
export interface ProductSnapshot {
  productId: string;
  name: string;
  /** Decimal text, as stored. */
  price: string;
  stock: number;
  status: ProductStatus;
}

/** Quantity of one product, as orders reserve and release it. */
export interface ProductQuantity {
  productId: string;
  quantity: number;
}

/**
 * The catalogue as ordering sees it: product snapshots to price lines, and stock reservations. Runs in the
 * caller's transaction (`db`), so a reservation commits or rolls back with the order change it serves.
 */
@Injectable()
export class ProductStockService {
  constructor(private readonly products: ProductsRepository) {}

  /** Snapshots of the products of `ids` that exist, by id. */
  async snapshots(ids: readonly string[], db?: EntityManager): Promise<Map<string, ProductSnapshot>> {
    const products = await this.products.readMany(ids, db);
    return new Map(products.map((p) => [p.productId, p]));
  }

  /**
   * Takes the quantities from the stock, one conditional update per product in the given order (callers
   * pass product order, so concurrent reservations never deadlock); a product short of stock is 409
   * INSUFFICIENT_STOCK, and the caller's transaction rolls back what was already taken.
   */
  async reserve(db: EntityManager, quantities: readonly ProductQuantity[]): Promise<void> {
    for (const { productId, quantity } of quantities) {
      if (!(await this.products.take(db, productId, quantity))) throw new AppException('INSUFFICIENT_STOCK');
    }
  }

  /** Gives reserved quantities back to the stock. */
  async release(db: EntityManager, quantities: readonly ProductQuantity[]): Promise<void> {
    for (const { productId, quantity } of quantities) await this.products.giveBack(db, productId, quantity);
  }
}
