import type { ModelOf, OrderFields } from './order-fields';
import type { ActionTextField } from './order-state-machine';
import type { OrderStatus } from './order-status';

/**
 * The order model the services and the repository share, derived from the declaration of its fields
 * (order-fields.ts). Plain data, no framework. Money stays decimal text (`numeric(12,2)` as PostgreSQL
 * prints it). The API's bodies are not built from it: PostgreSQL renders them from the same declaration
 * (`OrderBody`).
 */
export type Order = ModelOf<OrderFields>;

/** An order line; name and unit price are frozen when the line is added. */
export type OrderLine = Order['items'][number];

export type DeliveryAddress = NonNullable<Order['deliveryAddress']>;

/**
 * An order as one version of the API serves it: the body's JSON text, rendered by PostgreSQL from the
 * declaration (the one renderer of order bodies), with what the access check and the answer's headers
 * need beside it.
 */
export interface OrderBody {
  orderId: string;
  customerId: string;
  /** The version of the order (not of the API): the ETag is derived from it. */
  version: number;
  json: string;
}

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

/** A merge patch (RFC 7396): `undefined` leaves a field alone, `null` removes it. */
export interface OrderPatch {
  note?: string | null;
  deliveryAddress?: { streetName?: string | null; zipCode?: string | null } | null;
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
} & Partial<Record<ActionTextField, string | null>>;

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
