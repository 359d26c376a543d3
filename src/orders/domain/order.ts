import type { OrderStatus } from './order-status';

/**
 * The order model the services, the repository and the HTTP views share. Plain data, no framework: the
 * repository maps rows to it, the views map it to a versioned payload. Money stays decimal text
 * (`numeric(12,2)` as PostgreSQL prints it) until a view decides how to serve it.
 */
export interface DeliveryAddress {
  streetName: string;
  zipCode: string;
}

/** An order line; name and unit price are frozen when the line is added (DECISIONS "Orders"). */
export interface OrderLine {
  itemId: string;
  productId: string;
  productName: string;
  unitPrice: string;
  quantity: number;
}

/** The order's own text fields an action's request may set (the state table says which). */
export type OrderTextField = 'cancellationReason' | 'refundReason' | 'trackingNumber' | 'carrier';

/** The time stamp an action writes (the state table says which). */
export type OrderTimestampField = 'confirmedAt' | 'shippedAt' | 'deliveredAt' | 'cancelledAt' | 'refundedAt';

export type Order = {
  orderId: string;
  customerId: string;
  status: OrderStatus;
  currency: string;
  totalAmount: string;
  deliveryAddress?: DeliveryAddress;
  note?: string;
  /** Bumped by every change; the ETag is derived from it. */
  version: number;
  createdAt: Date;
  /** Present after the first change (contract: "present after an update"). */
  updatedAt?: Date;
  items: OrderLine[];
} & Partial<Record<OrderTextField, string>> &
  Partial<Record<OrderTimestampField, Date>>;

/** Most lines an order holds, at creation and after any addition (DECISIONS "Orders": 0..100 lines). */
export const MAX_ORDER_LINES = 100;
/** Most units of a product one line may ask for. */
export const MAX_LINE_QUANTITY = 1_000_000;

/** A line as a client asks for it. */
export interface RequestedLine {
  productId: string;
  quantity: number;
}

/** A line checked against the catalogue, its name and price frozen. */
export interface PricedLine extends RequestedLine {
  productName: string;
  unitPrice: string;
}

/** What an owner sets on an order: on create, and replaced as a whole by PUT (absent means removed). */
export interface OrderDraft {
  items?: RequestedLine[];
  deliveryAddress?: DeliveryAddress;
  note?: string;
}

/**
 * What a create is known by beyond its own request (its Idempotency-Key, caller-scoped), kept with the order:
 * a create with the same reference within `windowSeconds` returns the order it made instead of a second one.
 */
export interface OrderCreation {
  reference: string;
  windowSeconds: number;
}

/** A merge patch (RFC 7396): `undefined` leaves a field alone, `null` removes it. */
export interface OrderPatch {
  note?: string | null;
  deliveryAddress?: { streetName?: string | null; zipCode?: string | null } | null;
}

/** The request fields of actions; the state table maps each to the order field it sets. */
export interface ActionParams {
  reason?: string;
  trackingNumber?: string;
  carrier?: string;
}

/**
 * The versions of an order a client's precondition (`If-Match`) accepts; undefined when it set none.
 * Empty when it named no version of this order at all, which no version satisfies.
 */
export type ExpectedVersions = readonly number[] | undefined;

export function satisfies(expected: ExpectedVersions, version: number): boolean {
  return expected === undefined || expected.includes(version);
}

/** A field change of an order, as the repository writes it: `null` clears the field. */
export type OrderFieldChanges = {
  status?: OrderStatus;
  deliveryAddress?: DeliveryAddress | null;
  note?: string | null;
} & Partial<Record<OrderTextField, string | null>>;

/** Quantities of an order per product, in product order (the lock order of stock reservations). */
export function quantitiesByProduct(lines: readonly { productId: string; quantity: number }[]): Array<{
  productId: string;
  quantity: number;
}> {
  const totals = new Map<string, number>();
  for (const line of lines) totals.set(line.productId, (totals.get(line.productId) ?? 0) + line.quantity);
  return [...totals.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([productId, quantity]) => ({ productId, quantity }));
}

/**
 * The delivery address after a merge patch of it, or the part a half-removed address misses: an address
 * is both parts or nothing.
 */
export function patchedDeliveryAddress(
  current: DeliveryAddress | undefined,
  patch: NonNullable<OrderPatch['deliveryAddress']>,
): { address: DeliveryAddress | null } | { missing: 'streetName' | 'zipCode' } {
  const streetName = patch.streetName === undefined ? (current?.streetName ?? null) : patch.streetName;
  const zipCode = patch.zipCode === undefined ? (current?.zipCode ?? null) : patch.zipCode;
  if (streetName === null && zipCode === null) return { address: null };
  if (streetName === null) return { missing: 'streetName' };
  if (zipCode === null) return { missing: 'zipCode' };
  return { address: { streetName, zipCode } };
}
