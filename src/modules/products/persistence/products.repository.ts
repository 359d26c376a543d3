import { Injectable } from '@nestjs/common';
import { Sql } from '../../../platform/database/sql';
import { read, replicaRead, write } from '../../../platform/database/sql-statement';
import type { Tx } from '../../../platform/database/transactions';
import type { Product, ProductStatus } from '../domain/product';

export interface NewProduct {
  name: string;
  /** Decimal text with 2 decimals. */
  price: string;
  stock: number;
  status: ProductStatus;
}

export type ProductChanges = Partial<NewProduct>;

/** What ordering reads of a product (`readMany`). */
export interface ProductSaleRow {
  productId: string;
  name: string;
  /** Decimal text, as stored. */
  price: string;
  stock: number;
  status: ProductStatus;
}

/** What `takeMany` takes from one product: the total quantity, and how many reservations it serves. */
export interface StockTake {
  productId: string;
  quantity: number;
  reservations: number;
}

/** Every order create and change prices its lines with this: a prepared statement, one row per product. */
const READ_FOR_SALE = read(
  `SELECT product_id AS "productId", name, price::text AS price, stock, status
   FROM products WHERE product_id = ANY($1::uuid[])`,
  'products.read-for-sale',
);

/** The columns of a `Product`. */
const PRODUCT_COLUMNS = `product_id AS "productId", name, price::text AS price, stock, status,
  created_at AS "createdAt", updated_at AS "updatedAt"`;

const PAGE = replicaRead(
  `SELECT ${PRODUCT_COLUMNS} FROM products ORDER BY created_at DESC, product_id DESC LIMIT $1 OFFSET $2`,
);
const COUNT = replicaRead('SELECT count(*)::int AS total FROM products');
const READ_PRODUCT = read(`SELECT ${PRODUCT_COLUMNS} FROM products WHERE product_id = $1`);
const INSERT_PRODUCT = write(
  `INSERT INTO products (name, price, stock, status) VALUES ($1, $2, $3, $4) RETURNING ${PRODUCT_COLUMNS}`,
);
const TAKE = write(
  `UPDATE products SET stock = stock - $2, version = version + 1, updated_at = now()
   WHERE product_id = $1 AND stock >= $2`,
);
const LOCK_STOCK = write(
  `SELECT product_id AS "productId", stock FROM products
   WHERE product_id = ANY($1::uuid[]) ORDER BY product_id FOR UPDATE`,
);
const TAKE_MANY = write(
  `UPDATE products p SET stock = p.stock - t.quantity, version = p.version + t.reservations,
     updated_at = now()
   FROM unnest($1::uuid[], $2::int[], $3::int[]) AS t(product_id, quantity, reservations)
   WHERE p.product_id = t.product_id AND p.stock >= t.quantity`,
);
const GIVE_BACK = write(
  `UPDATE products SET stock = LEAST(stock::bigint + $2, 2147483647), version = version + 1,
     updated_at = now() WHERE product_id = $1`,
);

/** The column of each field a product's change may set. */
const CHANGEABLE_COLUMNS: Record<keyof ProductChanges, string> = {
  name: 'name',
  price: 'price',
  stock: 'stock',
  status: 'status',
};

/** Every statement on `products`. Writes take the caller's transaction. */
@Injectable()
export class ProductsRepository {
  constructor(private readonly sql: Sql) {}

  /** A page of the catalogue, newest first, and how many products there are. */
  async page(paging: { limit: number; offset: number }): Promise<{ products: Product[]; total: number }> {
    const [products, [{ total }]] = await Promise.all([
      this.sql.rows<Product>(PAGE, [paging.limit, paging.offset]),
      this.sql.rows<{ total: number }>(COUNT),
    ]);
    return { products, total };
  }

  async read(productId: string): Promise<Product | undefined> {
    const [product] = await this.sql.rows<Product>(READ_PRODUCT, [productId]);
    return product;
  }

  /** The products of `ids` that exist. */
  readMany(ids: readonly string[]): Promise<ProductSaleRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.sql.rows<ProductSaleRow>(READ_FOR_SALE, [ids]);
  }

  async insert(tx: Tx, product: NewProduct): Promise<Product> {
    const [created] = await tx.rows<Product>(INSERT_PRODUCT, [
      product.name,
      product.price,
      product.stock,
      product.status,
    ]);
    return created;
  }

  /** Sets the fields `changes` names (at least one), a new version; the product afterwards, if it exists. */
  async update(tx: Tx, productId: string, changes: ProductChanges): Promise<Product | undefined> {
    const fields = Object.keys(changes) as Array<keyof ProductChanges>;
    const [updated] = await tx.rows<Product>(
      write(
        `UPDATE products SET ${fields.map((f, i) => `${CHANGEABLE_COLUMNS[f]} = $${i + 2}`).join(', ')},
           version = version + 1, updated_at = now()
         WHERE product_id = $1 RETURNING ${PRODUCT_COLUMNS}`,
      ),
      [productId, ...fields.map((f) => changes[f])],
    );
    return updated;
  }

  /** Takes `quantity` from the stock if that much is left; false otherwise (a conditional update, no race). */
  async take(tx: Tx, productId: string, quantity: number): Promise<boolean> {
    return (await tx.rowCount(TAKE, [productId, quantity])) > 0;
  }

  /**
   * Locks the rows of the products of `ids` that exist, in product-id order (every writer of several
   * products' stock takes them in that order, so none deadlocks with another), and reads their stock.
   */
  async lockStock(tx: Tx, ids: readonly string[]): Promise<Map<string, number>> {
    const rows = await tx.rows<{ productId: string; stock: number }>(LOCK_STOCK, [ids]);
    return new Map(rows.map((r) => [r.productId, r.stock]));
  }

  /**
   * Takes quantities from many products in one statement, each row's `version` bumped once per
   * reservation it serves (as that many `take`s would). Only under `lockStock`: the caller has checked the
   * stock; the `stock >=` condition merely keeps a wrong caller from driving it negative. Resolves to the
   * number of products changed.
   */
  async takeMany(tx: Tx, takes: readonly StockTake[]): Promise<number> {
    if (takes.length === 0) return 0;
    return tx.rowCount(TAKE_MANY, [
      takes.map((t) => t.productId),
      takes.map((t) => t.quantity),
      takes.map((t) => t.reservations),
    ]);
  }

  /**
   * Returns `quantity` to the stock. The stock is an `integer` column: a stock an admin raised to its
   * maximum meanwhile stays at the maximum (the sum would not fit: a cancellation failed with a 500).
   */
  async giveBack(tx: Tx, productId: string, quantity: number): Promise<void> {
    await tx.rowCount(GIVE_BACK, [productId, quantity]);
  }
}
