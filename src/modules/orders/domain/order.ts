import { ModelOf, ORDER_FIELDS, OrderFields, SettableName, settableFieldsOf } from './order-fields';
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

/** The fields a client sets (the declaration's `settable` ones). */
type Settable = SettableName<OrderFields>;

/** The settable fields of an order, as the model holds them. */
export type SettableFields = Partial<Pick<Order, Settable>>;

/** What an owner sets on an order: on create, and replaced as a whole by PUT (absent means removed). */
export interface OrderDraft extends SettableFields {
  items?: RequestedLine[];
}

/** A merge patch of a value: an object's members each patched, a scalar replaced. */
type PatchOf<V> = V extends string | number | Date ? V : { [M in keyof V]?: V[M] | null };

/** A merge patch (RFC 7396): `undefined` leaves a field alone, `null` removes it. */
export type OrderPatch = { [N in Settable]?: PatchOf<NonNullable<Order[N]>> | null };

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
} & { [N in Settable]?: Order[N] | null } & Partial<Record<ActionTextField, string | null>>;

const SETTABLE = settableFieldsOf(ORDER_FIELDS) as Array<[Settable, (typeof ORDER_FIELDS)[Settable]]>;

/** The settable fields of a draft, as a create writes them (absent ones left out). */
export function draftFields(draft: OrderDraft): SettableFields {
  const fields: Record<string, unknown> = {};
  for (const [name] of SETTABLE) if (draft[name] !== undefined) fields[name] = draft[name];
  return fields as SettableFields;
}

/** PUT: every settable field replaced by the draft's; an absent one is removed. */
export function replacedFields(draft: OrderDraft): OrderFieldChanges {
  const fields: Record<string, unknown> = {};
  for (const [name] of SETTABLE) fields[name] = draft[name] ?? null;
  return fields as OrderFieldChanges;
}

/**
 * PATCH: the changes a merge patch makes to `current`, or the member of an object it leaves half removed (an
 * object is all its members or none).
 */
export function patchedFields(current: Order, patch: OrderPatch): OrderFieldChanges | { missing: string } {
  const fields: Record<string, unknown> = {};
  for (const [name, field] of SETTABLE) {
    const value = patch[name];
    if (value === undefined) continue;
    if (field.kind !== 'object' || value === null) {
      fields[name] = value;
      continue;
    }
    const patched = patchedObject(
      Object.keys(field.members),
      current[name] as Record<string, unknown> | undefined,
      value as Record<string, unknown>,
    );
    if ('missing' in patched) return { missing: `${name}.${patched.missing}` };
    fields[name] = patched.value;
  }
  return fields as OrderFieldChanges;
}

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
 * An object after a merge patch of its `members`, or the member a half-removed object misses: an object is
 * all its members or nothing.
 */
function patchedObject(
  members: readonly string[],
  current: Record<string, unknown> | undefined,
  patch: Record<string, unknown>,
): { value: Record<string, unknown> | null } | { missing: string } {
  const value: Record<string, unknown> = {};
  for (const member of members)
    value[member] = patch[member] === undefined ? (current?.[member] ?? null) : patch[member];
  const absent = members.filter((member) => value[member] === null);
  if (absent.length === members.length) return { value: null };
  if (absent.length > 0) return { missing: absent[0] };
  return { value };
}
