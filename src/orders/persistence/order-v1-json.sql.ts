/**
 * The v1 Order of the row `o`, rendered by PostgreSQL as the JSON text the API sends: the same bytes as
 * `JSON.stringify(toOrderResponse(order))` (http/order.view.ts), field for field and in the same order,
 * for offset list pages, which then pass from the driver to the socket as text instead of being parsed into
 * objects, mapped to orders and views, and serialized again (docs/decisions.md "A v1 list page's orders are
 * rendered by PostgreSQL"). The view stays the definition of the body; test/orders-v1-json.e2e-spec.ts
 * holds the two byte-equal over every kind of value (absent, empty, escaped, fractional).
 *
 * The output rules, in SQL:
 * - a field without a value is left out: each member is `"name":value`, NULL when the value is (a NULL
 *   operand makes `||` NULL), and `concat_ws` skips NULLs; empty texts count as none (`NULLIF(…, '')`);
 * - strings are JSON string literals (`to_json`: the same escapes as JSON.stringify);
 * - money is a JSON number: `trim_scale` prints 209.00 as 209 and 24.50 as 24.5, which is how JavaScript
 *   prints the Number of the decimal text (numeric(12,2) has at most 12 significant digits, within a double's
 *   exact range, and never needs an exponent; the schema refuses 'NaN', which `numeric` would otherwise hold);
 * - time stamps are `YYYY-MM-DDThh:mm:ssZ` in UTC, the fraction cut (`to_char`'s SS truncates); the schema
 *   holds them to finite instants of years 1–9999, which that format can print;
 * - the delivery address exists when both its columns do (as `toOrder` reads it); lines in creation order.
 */

const TIMESTAMP_FORMAT = `'YYYY-MM-DD"T"HH24:MI:SS"Z"'`;

/** `"name":value` of a member, NULL (left out) when `value` is NULL. */
function member(name: string, value: string): string {
  return `'"${name}":' || ${value}`;
}

const text = (name: string, column: string) => member(name, `to_json(NULLIF(${column}, ''))`);
const uuid = (name: string, column: string) => member(name, `to_json(${column})`);
const money = (name: string, column: string) => member(name, `trim_scale(${column})`);
const timestamp = (name: string, column: string) =>
  member(name, `'"' || to_char(${column} AT TIME ZONE 'UTC', ${TIMESTAMP_FORMAT}) || '"'`);

/** An object of the members given (each possibly NULL), as JSON text. */
function object(members: string[]): string {
  return `'{' || concat_ws(',', ${members.join(',\n    ')}) || '}'`;
}

const LINE = object([
  uuid('itemId', 'i.item_id'),
  uuid('productId', 'i.product_id'),
  text('productName', 'i.product_name'),
  member('quantity', 'i.quantity'),
  money('unitPrice', 'i.unit_price'),
]);

const DELIVERY_ADDRESS = `CASE WHEN o.delivery_street_name IS NOT NULL AND o.delivery_zip_code IS NOT NULL
    THEN ${member(
      'deliveryAddress',
      object([text('streetName', 'o.delivery_street_name'), text('zipCode', 'o.delivery_zip_code')]),
    )} END`;

/** The v1 Order of the row `o` (with its lines from order_items) as JSON text. */
export function orderV1JsonText(): string {
  return object([
    uuid('orderId', 'o.order_id'),
    uuid('customerId', 'o.customer_id'),
    member('status', 'to_json(o.status)'),
    money('totalAmount', 'o.total_amount'),
    member('currency', 'to_json(o.currency)'),
    timestamp('createdAt', 'o.created_at'),
    timestamp('updatedAt', 'o.updated_at'),
    timestamp('confirmedAt', 'o.confirmed_at'),
    timestamp('shippedAt', 'o.shipped_at'),
    timestamp('deliveredAt', 'o.delivered_at'),
    timestamp('cancelledAt', 'o.cancelled_at'),
    timestamp('refundedAt', 'o.refunded_at'),
    DELIVERY_ADDRESS,
    member(
      'items',
      `'[' || COALESCE((SELECT string_agg(${LINE}, ',' ORDER BY i.created_at, i.item_id)
        FROM order_items i WHERE i.order_id = o.order_id), '') || ']'`,
    ),
    text('note', 'o.note'),
    text('trackingNumber', 'o.tracking_number'),
    text('carrier', 'o.carrier'),
    text('cancellationReason', 'o.cancellation_reason'),
    text('refundReason', 'o.refund_reason'),
  ]);
}
