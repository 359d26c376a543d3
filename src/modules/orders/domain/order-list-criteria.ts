import type { OrderStatus } from './order-status';

/**
 * What an order list asks for, whatever the request looked like: the GET list's query string and the
 * POST /orders/search body are both mapped to these by the HTTP layer; the query service and the
 * repository only ever see them.
 */
export const SORT_FIELDS = ['createdAt', 'updatedAt', 'totalAmount', 'status'] as const;
export type SortField = (typeof SORT_FIELDS)[number];
export type SortDirection = 'asc' | 'desc';
export interface SortKey {
  field: SortField;
  direction: SortDirection;
}
/** `orderId` breaks ties in every sort, in the direction of the last key. */
export const DEFAULT_SORT: readonly SortKey[] = [{ field: 'createdAt', direction: 'desc' }];

export interface OrderFilter {
  customerIds?: string[];
  statuses?: OrderStatus[];
  /** Inclusive UTC calendar dates (YYYY-MM-DD) of createdAt. */
  dateFrom?: string;
  dateTo?: string;
  amountFrom?: number;
  amountTo?: number;
  q?: string;
  regionIds?: number[];
  segment?: string;
}

/** Who may be seen: a customer only their own orders; an admin everyone's. */
export interface OrderScope {
  customerId?: string;
}

/** Offset paging (page numbers and totals) or cursor paging (`cursor` '' for the first chunk). */
export type OffsetPaging = { kind: 'offset'; page: number; size: number };
export type CursorPaging = { kind: 'cursor'; cursor: string; size: number };
export type OrderPaging = OffsetPaging | CursorPaging;

export interface OrderListCriteria {
  filter: OrderFilter;
  sort: readonly SortKey[];
  paging: OrderPaging;
}

/** Sort keys count in a keyset position: the sort fields plus the `orderId` tie-breaker. */
export function keyCount(sort: readonly SortKey[]): number {
  return sort.length + 1;
}
