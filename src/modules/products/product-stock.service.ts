import { Injectable } from '@nestjs/common';
import type { Tx } from '../../platform/database/transactions';
import { AppException } from '../../platform/problem/app-exception';
import type { ProductStatus } from './domain/product';
import { ProductsRepository, StockTake } from './persistence/products.repository';

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
 * caller's transaction (`tx`), so a reservation commits or rolls back with the order change it serves.
 */
@Injectable()
export class ProductStockService {
  constructor(private readonly products: ProductsRepository) {}

  /** Snapshots of the products of `ids` that exist, by id. */
  async snapshots(ids: readonly string[]): Promise<Map<string, ProductSnapshot>> {
    const products = await this.products.readMany(ids);
    return new Map(products.map((p) => [p.productId, p]));
  }

  /**
   * Takes the quantities from the stock, one conditional update per product in the given order (callers
   * pass product order, so concurrent reservations never deadlock); a product short of stock is 409
   * INSUFFICIENT_STOCK, and the caller's transaction rolls back what was already taken.
   */
  async reserve(tx: Tx, quantities: readonly ProductQuantity[]): Promise<void> {
    for (const { productId, quantity } of quantities) {
      if (!(await this.products.take(tx, productId, quantity))) throw new AppException('INSUFFICIENT_STOCK');
    }
  }

  /**
   * Reserves stock for many requests at once (the batch confirm), in three steps: the products of
   * `productIds` (every product a request may name) are locked in one statement, in product order as
   * `reserve` locks them; `allocate` is handed a `grant` that gives a request all of its quantities or none,
   * in the order it is called, from the stock left by the requests before it (a request that would drive a
   * stock below zero gets false and takes nothing; a later, smaller one may still get its share); then all
   * that was granted is taken in one statement. Resolves to what `allocate` returns.
   */
  async reserveMany<R>(
    tx: Tx,
    productIds: readonly string[],
    allocate: (grant: (quantities: readonly ProductQuantity[]) => boolean) => R,
  ): Promise<R> {
    const left =
      productIds.length > 0
        ? await this.products.lockStock(tx, [...new Set(productIds)])
        : new Map<string, number>();
    const takes = new Map<string, StockTake>();
    const grant = (quantities: readonly ProductQuantity[]): boolean => {
      const needed = new Map<string, number>();
      for (const { productId, quantity } of quantities) {
        needed.set(productId, (needed.get(productId) ?? 0) + quantity);
      }
      // A product not locked (or not there) has no stock to give, as `take` finds no row to change.
      for (const [productId, quantity] of needed) if (quantity > (left.get(productId) ?? 0)) return false;
      for (const [productId, quantity] of needed) {
        left.set(productId, (left.get(productId) ?? 0) - quantity);
        const take = takes.get(productId) ?? { productId, quantity: 0, reservations: 0 };
        take.quantity += quantity;
        take.reservations += 1;
        takes.set(productId, take);
      }
      return true;
    };
    const result = allocate(grant);
    const taken = await this.products.takeMany(tx, [...takes.values()]);
    // The rows are locked and each grant was checked against them: a shortfall here is a bug, never a race.
    if (taken !== takes.size) throw new Error(`stock of ${takes.size - taken} locked products fell short`);
    return result;
  }

  /** Gives reserved quantities back to the stock. */
  async release(tx: Tx, quantities: readonly ProductQuantity[]): Promise<void> {
    for (const { productId, quantity } of quantities) await this.products.giveBack(tx, productId, quantity);
  }
}
