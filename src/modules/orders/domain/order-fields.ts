import type { OrderStatus } from './order-status';
import {
  ActionTextField,
  ORDER_ACTIONS,
  ORDER_TRANSITIONS,
  OrderTimestampField,
} from './order-state-machine';

/**
 * The order's fields, declared once: name, column, kind, and where a body or the export differs from the
 * name. Every form of an order derives from this declaration:
 * - the SQL that reads an order: the model's record and the v1 and v2 bodies' JSON text, rendered by
 *   PostgreSQL (persistence/order-json.sql.ts), and the changes it writes;
 * - the response schemas of the v1 and v2 bodies in the OpenAPI document (http/dto/order-response.dto.ts),
 *   and the bounds of the request fields that set the same values;
 * - the export's CSV columns and JSON records (order-export.ts);
 * - the entities describing the tables (persistence/*.entity.ts) and the model type `Order` (order.ts).
 *
 * A field's kind decides how each form treats it:
 * - `uuid`, `status`, `currency`: text, a JSON string;
 * - `text`: free text within `bounds`; an empty text is served as none;
 * - `money`: `numeric(12,2)`, exact decimal text in the model; v1 serves a JSON number, v2 a MoneyV2 object
 *   with the order's currency;
 * - `integer`: a whole number within `bounds`;
 * - `timestamp`: an instant, served as `YYYY-MM-DDThh:mm:ssZ` in UTC, the fraction cut;
 * - `object`: columns served as one nested object, present when each of them holds a value;
 * - `lines`: the order's rows of another table, in the order they were added.
 * A field without a value is left out of every body (optional fields, and empty texts); `optional` says
 * which fields an order may lack. The bodies list the fields in this order.
 *
 * A `settable` field is one a client sets: on create, replaced by PUT, changed by a merge patch. The create's
 * insert, PUT's and PATCH's changes derive from that flag (order.ts, persistence/order-json.sql.ts): a new
 * settable field is its declaration here, its request rule (http/dto/order-request.dto.ts) and a migration.
 */

/** Length (in code points) and characters of a text field. */
export interface TextBounds {
  min: number;
  max: number;
  /** Line breaks and tabs allowed (notes, reasons); one line otherwise. */
  multiline?: boolean;
  example?: string;
}

/** The range of a whole number. */
export interface IntegerBounds {
  min: number;
  max: number;
}

interface FieldBase {
  column: string;
  /** An order may lack it; a body then leaves it out. */
  optional?: boolean;
  /** A client sets it (create, PUT, PATCH). */
  settable?: boolean;
  /** Kept in the model only: no body, schema or export shows it (the version, which the ETag carries). */
  internal?: boolean;
  /** What the response schemas say of the field. */
  description?: string;
  example?: number;
  /** How v2 serves it, where it differs from v1: another name, another description. */
  v2?: { name?: string; description?: string };
  /** The export's CSV column, where it is not the field's name (members of an object). */
  exportColumn?: string;
}

export type ScalarField =
  | (FieldBase & { kind: 'uuid' | 'status' | 'currency' | 'money' | 'timestamp' })
  | (FieldBase & { kind: 'text'; bounds: TextBounds })
  | (FieldBase & { kind: 'integer'; bounds: IntegerBounds });

export interface ObjectField {
  kind: 'object';
  optional: true;
  /** A client sets it (create, PUT, PATCH): all its members, or none. */
  settable?: boolean;
  members: Readonly<Record<string, ScalarField>>;
}

export interface LinesField {
  kind: 'lines';
  /** The table holding the lines, and the columns ordering them. */
  table: string;
  orderBy: readonly string[];
  /** The column naming the order, in the lines' table as in the order's. */
  orderKey: string;
  /** Most lines an order holds. */
  max: number;
  members: Readonly<Record<string, ScalarField>>;
}

export type FieldDeclaration = ScalarField | ObjectField | LinesField;

/** The versions of the API an order is served in. */
export type OrderBodyVersion = 'v1' | 'v2';

/** Most lines an order holds, at creation and after any addition (0 to 100). */
export const MAX_ORDER_LINES = 100;
/** Most units of a product one line may ask for. */
export const MAX_LINE_QUANTITY = 1_000_000;
const INT32_MAX = 2_147_483_647;

/** The fields of an order line, a row of `order_items`; name and price are frozen when it is added. */
export const LINE_FIELDS = {
  itemId: { kind: 'uuid', column: 'item_id' },
  productId: { kind: 'uuid', column: 'product_id' },
  /** The product's name as the catalogue bounds it. */
  productName: { kind: 'text', column: 'product_name', bounds: { min: 1, max: 200 } },
  quantity: { kind: 'integer', column: 'quantity', bounds: { min: 1, max: MAX_LINE_QUANTITY } },
  unitPrice: {
    kind: 'money',
    column: 'unit_price',
    example: 199.9,
    description: 'Frozen when the line was added.',
  },
} as const satisfies Record<string, ScalarField>;

/** `confirmedAt` → `confirmed_at`. */
function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** One optional time stamp per row of the state table, named by the row, in the rows' order. */
const ACTION_STAMPS = Object.fromEntries(
  ORDER_ACTIONS.map((action) => {
    const name = ORDER_TRANSITIONS[action].stamp;
    return [name, { kind: 'timestamp', column: snakeCase(name), optional: true }];
  }),
) as Record<OrderTimestampField, { kind: 'timestamp'; column: string; optional: true }>;

const REASON: TextBounds = { min: 1, max: 500, multiline: true };

/** The fields of an order, a row of `orders` with its lines, in the order the bodies list them. */
export const ORDER_FIELDS = {
  orderId: { kind: 'uuid', column: 'order_id' },
  customerId: { kind: 'uuid', column: 'customer_id' },
  status: { kind: 'status', column: 'status' },
  totalAmount: {
    kind: 'money',
    column: 'total_amount',
    example: 399.8,
    description: 'Sum of unitPrice × quantity, at most 2 decimals.',
    v2: { name: 'total', description: 'Sum of unitPrice × quantity (v1: totalAmount).' },
  },
  currency: { kind: 'currency', column: 'currency' },
  createdAt: { kind: 'timestamp', column: 'created_at' },
  updatedAt: {
    kind: 'timestamp',
    column: 'updated_at',
    optional: true,
    description: 'Present after an update.',
  },
  ...ACTION_STAMPS,
  deliveryAddress: {
    kind: 'object',
    optional: true,
    settable: true,
    members: {
      streetName: {
        kind: 'text',
        column: 'delivery_street_name',
        bounds: { min: 1, max: 200, example: 'Tverskaya 1' },
        exportColumn: 'deliveryStreetName',
      },
      zipCode: {
        kind: 'text',
        column: 'delivery_zip_code',
        bounds: { min: 1, max: 20, example: '125009' },
        exportColumn: 'deliveryZipCode',
      },
    },
  },
  items: {
    kind: 'lines',
    table: 'order_items',
    orderKey: 'order_id',
    orderBy: ['created_at', 'item_id'],
    max: MAX_ORDER_LINES,
    members: LINE_FIELDS,
  },
  note: {
    kind: 'text',
    column: 'note',
    optional: true,
    settable: true,
    bounds: { min: 1, max: 1000, multiline: true },
  },
  trackingNumber: { kind: 'text', column: 'tracking_number', optional: true, bounds: { min: 1, max: 100 } },
  carrier: { kind: 'text', column: 'carrier', optional: true, bounds: { min: 1, max: 100 } },
  cancellationReason: { kind: 'text', column: 'cancellation_reason', optional: true, bounds: REASON },
  refundReason: { kind: 'text', column: 'refund_reason', optional: true, bounds: REASON },
  /** Bumped by every change; the ETag is derived from it. */
  version: { kind: 'integer', column: 'version', internal: true, bounds: { min: 1, max: INT32_MAX } },
} as const satisfies Record<string, FieldDeclaration>;

export type OrderFields = typeof ORDER_FIELDS;

type OptionalTextField = {
  [N in keyof OrderFields]: OrderFields[N] extends { kind: 'text'; optional: true } ? N : never;
}[keyof OrderFields];
type Expect<T extends never> = T;
/**
 * Compiles only while every order field an action's request sets (the state table's `params`) is declared
 * above as optional text; an undeclared one is named in the error.
 */
export type EveryActionFieldDeclared = Expect<Exclude<ActionTextField, OptionalTextField>>;

/** The value a scalar field holds in the model. */
type ScalarValue<F> = F extends { kind: 'timestamp' }
  ? Date
  : F extends { kind: 'integer' }
    ? number
    : F extends { kind: 'status' }
      ? OrderStatus
      : string;

type MembersOf<M> = { -readonly [N in keyof M]: ScalarValue<M[N]> };

/** The value a field holds in the model: an object of its members, a list of lines, or a scalar. */
type FieldValue<F> = F extends { kind: 'object'; members: infer M }
  ? MembersOf<M>
  : F extends { kind: 'lines'; members: infer M }
    ? Array<MembersOf<M>>
    : ScalarValue<F>;

/** The model of a declaration: its required fields, and its optional ones as optional properties. */
export type ModelOf<Fields> = {
  -readonly [N in keyof Fields as Fields[N] extends { optional: true } ? never : N]: FieldValue<Fields[N]>;
} & {
  -readonly [N in keyof Fields as Fields[N] extends { optional: true } ? N : never]?: FieldValue<Fields[N]>;
};

/** The fields of a declaration in order, with their declarations. */
export function fieldsOf<F extends FieldDeclaration>(
  fields: Readonly<Record<string, F>>,
): Array<[string, F]> {
  return Object.entries(fields);
}

/** The name a body gives a field in `version`. */
export function servedName(name: string, field: FieldDeclaration, version: OrderBodyVersion): string {
  return version === 'v2' && 'v2' in field && field.v2?.name ? field.v2.name : name;
}

/** The names of the fields of a declaration that a client sets. */
export type SettableName<Fields> = {
  [N in keyof Fields]: Fields[N] extends { settable: true } ? N : never;
}[keyof Fields];

/** The fields of `fields` a client sets, in order, with their declarations. */
export function settableFieldsOf(
  fields: Readonly<Record<string, FieldDeclaration>>,
): Array<[string, ScalarField | ObjectField]> {
  return fieldsOf(fields).filter(
    (entry): entry is [string, ScalarField | ObjectField] =>
      entry[1].kind !== 'lines' && entry[1].settable === true,
  );
}
