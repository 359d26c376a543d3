import type { OrderStatus } from './order-status';

/** A position in the orders sorted by creation: where the next chunk starts. */
export interface CreationKey {
  /** `created_at` as exact text (UTC, microseconds kept), which PostgreSQL casts back to the instant. */
  createdAt: string;
  orderId: string;
}

/** Inclusive UTC calendar dates (YYYY-MM-DD) of `createdAt`. */
export interface CreationRange {
  dateFrom: string;
  dateTo: string;
}

/**
 * Sums over one keyset chunk of orders (by creation): per UTC day and status, and per product over the
 * chunk's lines. Amounts are decimal text, summed by PostgreSQL in `numeric`.
 */
export interface OrderAggregateChunk {
  /** Orders in the chunk; fewer than asked means the range is exhausted. */
  orders: number;
  /** The last order of the chunk, where the next one starts; absent for an empty chunk. */
  last?: CreationKey;
  days: Array<{ day: string; status: OrderStatus; orders: number; amount: string }>;
  products: Array<{ productId: string; productName: string; quantity: number; amount: string }>;
}
