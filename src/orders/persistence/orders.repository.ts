import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type {
  DeliveryAddress,
  Order,
  OrderFieldChanges,
  OrderCreation,
  OrderLine,
  OrderTextField,
  OrderTimestampField,
  PricedLine,
} from '../domain/order';
import type { CreationKey, CreationRange, OrderAggregateChunk } from '../domain/order-aggregates';
import type { OrderFilter, OrderScope, SortKey } from '../domain/order-list-criteria';
import type { OrderStatus } from '../domain/order-status';
import { prepared, PooledStatements, StatementVariants } from '../../database/pooled-statements';
import { PageWindow, pageStatement, renderedPageStatement } from './order-list.sql';
import { orderV1JsonText } from './order-v1-json.sql';

/**
 * Every statement on `orders` and `order_items`: services hold rules and transactions, this holds SQL.
 * One row mapping for every read (one order, a page of orders, a created or changed order): the order with
 * its items as one JSON value (`orderJson`), so a read is one round trip and nothing is hydrated by the ORM.
 * Write methods take the `EntityManager` of the caller's transaction; single statements outside one (the
 * reads, and a create's insert, which is atomic by itself) run on the pool directly (`PooledStatements`), the
 * fixed ones as prepared statements.
 */

/**
 * The order's members in the JSON array `orderJson` writes, in this order, with the expression of each;
 * `toOrder` reads them by the same list's indexes. Money stays decimal text; time stamps are ISO 8601 with
 * their offset (whatever the session's time zone).
 */
const ORDER_MEMBERS = {
  orderId: 'o.order_id',
  customerId: 'o.customer_id',
  status: 'o.status',
  currency: 'o.currency',
  totalAmount: 'o.total_amount::text',
  deliveryStreetName: 'o.delivery_street_name',
  deliveryZipCode: 'o.delivery_zip_code',
  note: 'o.note',
  trackingNumber: 'o.tracking_number',
  carrier: 'o.carrier',
  cancellationReason: 'o.cancellation_reason',
  refundReason: 'o.refund_reason',
  version: 'o.version',
  createdAt: 'o.created_at',
  updatedAt: 'o.updated_at',
  confirmedAt: 'o.confirmed_at',
  shippedAt: 'o.shipped_at',
  deliveredAt: 'o.delivered_at',
  cancelledAt: 'o.cancelled_at',
  refundedAt: 'o.refunded_at',
} as const;
type OrderMember = keyof typeof ORDER_MEMBERS;
/** Where each member sits in the array; the items come after the last. */
const AT = Object.fromEntries(Object.keys(ORDER_MEMBERS).map((name, index) => [name, index])) as Record<
  OrderMember,
  number
>;
const ITEMS_AT = Object.keys(ORDER_MEMBERS).length;

/**
 * The order of the row `o` with its items, as one JSON value: the driver parses one value per order
 * (JSON.parse) instead of twenty columns through their type parsers. An array of the members
 * (`ORDER_MEMBERS`, then the items, each `[itemId, productId, productName, unitPrice, quantity]`) rather than
 * an object: little more than half the text, no keys to parse, and every order of one shape, which cuts the
 * parse and the mapping of a page by two fifths (docs/benchmarks.md, issue 15).
 */
export function orderJson(items = 'order_items'): string {
  return `json_build_array(${Object.values(ORDER_MEMBERS).join(', ')},
    COALESCE((SELECT json_agg(json_build_array(
                i.item_id, i.product_id, i.product_name, i.unit_price::text, i.quantity)
              ORDER BY i.created_at, i.item_id)
              FROM ${items} i WHERE i.order_id = o.order_id), '[]'::json))`;
}

/** An order as `orderJson` writes it: the members by `AT`, the items at `ITEMS_AT`. */
type OrderJson = readonly unknown[];
/** A line as `orderJson` writes it. */
type LineJson = readonly [
  itemId: string,
  productId: string,
  productName: string,
  unitPrice: string,
  quantity: number,
];

/** A member of an order as `orderJson` wrote it (text, a time stamp's text, or null). */
function member(json: OrderJson, name: OrderMember): string | null {
  return json[AT[name]] as string | null;
}

/** A row holding one order in its column `order`. */
interface OrderRow {
  order: OrderJson;
}

const SELECT_ORDER = `SELECT ${orderJson()} AS "order" FROM orders o`;

/**
 * A customer's pages, prepared: every variant scans that customer's range of the listing index behind its
 * fence, whatever the parameters, so PostgreSQL's generic plan is the custom one without the planning.
 * Admins' lists stay unnamed (across customers a status or date filter's best plan depends on its values).
 */
const CUSTOMER_PAGES = new StatementVariants('orders.customer-page');
const CUSTOMER_RENDERED_PAGES = new StatementVariants('orders.customer-page-v1');
const ORDER_V1_TEXT = orderV1JsonText();
const READ_ORDER = prepared('orders.read', `${SELECT_ORDER} WHERE o.order_id = $1`);
const READ_LATEST = prepared(
  'orders.read-latest',
  `${SELECT_ORDER} WHERE o.customer_id = $1 ORDER BY o.created_at DESC, o.order_id DESC LIMIT 1`,
);

/** Columns of the order's text fields and time stamps, by model field. */
const TEXT_COLUMNS: Record<OrderTextField, string> = {
  cancellationReason: 'cancellation_reason',
  refundReason: 'refund_reason',
  trackingNumber: 'tracking_number',
  carrier: 'carrier',
};
const TIMESTAMP_COLUMNS: Record<OrderTimestampField, string> = {
  confirmedAt: 'confirmed_at',
  shippedAt: 'shipped_at',
  deliveredAt: 'delivered_at',
  cancelledAt: 'cancelled_at',
  refundedAt: 'refunded_at',
};
const TEXT_FIELDS = Object.keys(TEXT_COLUMNS) as OrderTextField[];
const TIMESTAMP_FIELDS = Object.keys(TIMESTAMP_COLUMNS) as OrderTimestampField[];

function toOrder(json: OrderJson): Order {
  const order: Order = {
    orderId: member(json, 'orderId') as string,
    customerId: member(json, 'customerId') as string,
    status: member(json, 'status') as OrderStatus,
    currency: member(json, 'currency') as string,
    totalAmount: member(json, 'totalAmount') as string,
    version: json[AT.version] as number,
    createdAt: new Date(member(json, 'createdAt') as string),
    items: (json[ITEMS_AT] as LineJson[]).map(toLine),
  };
  const streetName = member(json, 'deliveryStreetName');
  const zipCode = member(json, 'deliveryZipCode');
  if (streetName !== null && zipCode !== null) order.deliveryAddress = { streetName, zipCode };
  const note = member(json, 'note');
  if (note !== null) order.note = note;
  const updatedAt = member(json, 'updatedAt');
  if (updatedAt !== null) order.updatedAt = new Date(updatedAt);
  for (const field of TEXT_FIELDS) {
    const value = member(json, field);
    if (value !== null) order[field] = value;
  }
  for (const field of TIMESTAMP_FIELDS) {
    const value = member(json, field);
    if (value !== null) order[field] = new Date(value);
  }
  return order;
}

function toLine([itemId, productId, productName, unitPrice, quantity]: LineJson): OrderLine {
  return { itemId, productId, productName, unitPrice, quantity };
}

/**
 * The SET list of a change of an order (`save`, `saveMany`), its values appended to `values`: the changed
 * fields, the action's time stamp (the database clock, so an order's stamps are mutually consistent), the
 * total recomputed from the lines, the version bumped (the ETag changes) and `updatedAt` set.
 */
function changeSet(
  changes: OrderFieldChanges,
  stamp: OrderTimestampField | undefined,
  values: unknown[],
): string {
  const set: string[] = [];
  const assign = (column: string, value: unknown) => {
    values.push(value);
    set.push(`${column} = $${values.length}`);
  };
  if (changes.status !== undefined) assign('status', changes.status);
  if (changes.note !== undefined) assign('note', changes.note);
  if (changes.deliveryAddress !== undefined) {
    assign('delivery_street_name', changes.deliveryAddress?.streetName ?? null);
    assign('delivery_zip_code', changes.deliveryAddress?.zipCode ?? null);
  }
  for (const [field, column] of Object.entries(TEXT_COLUMNS) as Array<[OrderTextField, string]>) {
    const value = changes[field];
    if (value !== undefined) assign(column, value);
  }
  if (stamp) set.push(`${TIMESTAMP_COLUMNS[stamp]} = now()`);
  set.push(
    `total_amount = COALESCE((SELECT sum(i.unit_price * i.quantity) FROM order_items i
       WHERE i.order_id = orders.order_id), 0)`,
    'version = version + 1',
    'updated_at = now()',
  );
  return set.join(', ');
}

/**
 * Inserts an order with its lines and total and returns it, in one statement (see `insert`). With a creation
 * reference ($9, within $10 seconds) an order this reference already created is returned instead, and
 * nothing is inserted.
 */
const INSERT_ORDER = prepared(
  'orders.insert',
  `
  WITH earlier AS (
    SELECT o.order_id FROM orders o
     WHERE $9::text IS NOT NULL AND o.creation_reference = $9
       AND o.created_at > now() - make_interval(secs => $10)
     LIMIT 1
  ), lines AS (
    SELECT * FROM unnest($5::uuid[], $6::text[], $7::numeric[], $8::int[])
      WITH ORDINALITY AS l(product_id, product_name, unit_price, quantity, position)
  ), created AS (
    INSERT INTO orders (customer_id, delivery_street_name, delivery_zip_code, note, total_amount, creation_reference)
    SELECT $1, $2, $3, $4, COALESCE((SELECT sum(unit_price * quantity) FROM lines), 0), $9
     WHERE NOT EXISTS (SELECT 1 FROM earlier)
    RETURNING *
  ), items AS (
    INSERT INTO order_items (order_id, product_id, product_name, unit_price, quantity)
    SELECT created.order_id, l.product_id, l.product_name, l.unit_price, l.quantity
    FROM created CROSS JOIN lines l ORDER BY l.position
    RETURNING *
  )
  SELECT ${orderJson('items')} AS "order" FROM created o
  UNION ALL
  SELECT ${orderJson()} AS "order" FROM orders o WHERE o.order_id IN (SELECT order_id FROM earlier)`,
);

export interface NewOrder {
  customerId: string;
  deliveryAddress?: { streetName: string; zipCode: string };
  note?: string;
  /** What the create is known by (its Idempotency-Key), and for how long: see OrderCreation. */
  creation?: OrderCreation;
}

/** A page of orders from `page`: the orders in sort order and, for cursor pages, each row's key values. */
export interface OrderPageRows {
  orders: Order[];
  /** Sort-key values of each order as text (cursor pages only), in the same order. */
  keys: string[][];
  /** The exact size of the list, when asked for. */
  total?: number;
}

@Injectable()
export class OrdersRepository {
  constructor(private readonly pooled: PooledStatements) {}

  async read(orderId: string): Promise<Order | undefined> {
    const [row] = await this.pooled.rows<OrderRow>(READ_ORDER, [orderId]);
    return row ? toOrder(row.order) : undefined;
  }

  /**
   * Locks an order's row until the transaction ends, so writers of one order serialize, then reads it. Two
   * statements, as readManyForUpdate: a statement that waited for the lock re-reads the locked row but sees
   * the rest (the order's lines) as of its start, so one statement would miss the lines the previous holder
   * of the lock added, and a confirm would reserve stock for the lines it saw.
   */
  async readForUpdate(db: EntityManager, orderId: string): Promise<Order | undefined> {
    const [order] = await this.readManyForUpdate(db, [orderId]);
    return order;
  }

  /**
   * Locks the orders of `orderIds` that exist in one statement, in order-id order (concurrent batches
   * take their locks in the same order, so they never deadlock), then reads them with their items in a
   * second one: its snapshot is taken after the locks, so it sees every change committed before them.
   */
  async readManyForUpdate(db: EntityManager, orderIds: readonly string[]): Promise<Order[]> {
    const locked: Array<{ order_id: string }> = await db.query(
      'SELECT order_id FROM orders WHERE order_id = ANY($1::uuid[]) ORDER BY order_id FOR UPDATE',
      [orderIds],
    );
    if (locked.length === 0) return [];
    const rows: OrderRow[] = await db.query(`${SELECT_ORDER} WHERE o.order_id = ANY($1::uuid[])`, [
      locked.map((r) => r.order_id),
    ]);
    return rows.map((r) => toOrder(r.order));
  }

  /** The customer's most recent order (the `latest` alias). */
  async readLatest(customerId: string): Promise<Order | undefined> {
    const [row] = await this.pooled.rows<OrderRow>(READ_LATEST, [customerId]);
    return row ? toOrder(row.order) : undefined;
  }

  /**
   * One page of a list in one statement (`pageStatement`): the orders with their items and, with
   * `total`, the exact size of the list. Keyset pages (no offset) also return each row's sort-key values,
   * for the cursors.
   */
  async page(
    filter: OrderFilter,
    scope: OrderScope,
    sort: readonly SortKey[],
    window: PageWindow,
    options: { total: boolean } = { total: false },
  ): Promise<OrderPageRows> {
    const { sql, values, keyed } = pageStatement(filter, scope, sort, window, orderJson(), options);
    const [row] = await this.pooled.rows<{
      total: string | null;
      orders: Array<{ order: OrderJson; keys?: Record<string, string> }>;
    }>(scope.customerId ? CUSTOMER_PAGES.of(sql) : sql, values);
    const keyNames = Array.from({ length: sort.length + 1 }, (_, i) => `k${i}`);
    return {
      orders: row.orders.map((r) => toOrder(r.order)),
      keys: keyed ? row.orders.map((r) => keyNames.map((k) => (r.keys as Record<string, string>)[k])) : [],
      ...(row.total !== null ? { total: Number(row.total) } : {}),
    };
  }

  /**
   * One offset page with its orders as the v1 API renders them, as the text of a JSON array
   * (`orderV1JsonText`), and the exact size of the list: for the v1 list pages, which send the text as it
   * comes.
   */
  async renderedPage(
    filter: OrderFilter,
    scope: OrderScope,
    sort: readonly SortKey[],
    window: PageWindow & { offset: number },
  ): Promise<{ content: string; total: number }> {
    const { sql, values } = renderedPageStatement(filter, scope, sort, window, ORDER_V1_TEXT);
    const [row] = await this.pooled.rows<{ total: string; content: string }>(
      scope.customerId ? CUSTOMER_RENDERED_PAGES.of(sql) : sql,
      values,
    );
    return { content: row.content, total: Number(row.total) };
  }

  /**
   * Inserts an order, its lines and its total and returns the whole order, in one statement (data-modifying
   * CTEs): one round trip, atomic without a transaction of its own, and nothing to read afterwards, so a
   * failure can never leave an order created behind an error response (which would let an idempotent retry
   * create it twice). Lines keep their request order (`created_at` is the clock time of each row); the
   * total is the sum of the frozen prices, computed by PostgreSQL in `numeric`.
   */
  async insert(order: NewOrder, lines: readonly PricedLine[]): Promise<Order> {
    const rows = await this.pooled.rows<OrderRow>(INSERT_ORDER, [
      order.customerId,
      order.deliveryAddress?.streetName ?? null,
      order.deliveryAddress?.zipCode ?? null,
      order.note ?? null,
      lines.map((l) => l.productId),
      lines.map((l) => l.productName),
      lines.map((l) => l.unitPrice),
      lines.map((l) => l.quantity),
      order.creation?.reference ?? null,
      order.creation?.windowSeconds ?? 0,
    ]);
    return toOrder(rows[0].order);
  }

  /**
   * One new order of `customerId` per line, each holding that one line (and `deliveryAddress`, when given),
   * in one statement however many lines there are (the order batch). `clock_timestamp()` stamps the orders
   * in line order. Resolves to the order ids in line order.
   */
  async insertSingleLineOrders(
    db: EntityManager,
    customerId: string,
    lines: readonly PricedLine[],
    deliveryAddress?: DeliveryAddress,
  ): Promise<string[]> {
    const orderIds = lines.map(() => randomUUID());
    await db.query(
      `WITH line AS (
         SELECT * FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::numeric[], $6::int[]) WITH ORDINALITY
           AS l(order_id, product_id, product_name, unit_price, quantity, position)),
       new_order AS (
         INSERT INTO orders (order_id, customer_id, delivery_street_name, delivery_zip_code, total_amount, created_at)
         SELECT order_id, $1, $7, $8, unit_price * quantity, clock_timestamp() FROM line ORDER BY position)
       INSERT INTO order_items (order_id, product_id, product_name, unit_price, quantity)
       SELECT order_id, product_id, product_name, unit_price, quantity FROM line ORDER BY position`,
      [
        customerId,
        orderIds,
        lines.map((l) => l.productId),
        lines.map((l) => l.productName),
        lines.map((l) => l.unitPrice),
        lines.map((l) => l.quantity),
        deliveryAddress?.streetName ?? null,
        deliveryAddress?.zipCode ?? null,
      ],
    );
    return orderIds;
  }

  /** Adds lines to an order (in line order); resolves to their item ids. The total is recomputed by `save`. */
  async insertLines(db: EntityManager, orderId: string, lines: readonly PricedLine[]): Promise<string[]> {
    if (lines.length === 0) return [];
    const rows: Array<{ item_id: string }> = await db.query(
      `INSERT INTO order_items (order_id, product_id, product_name, unit_price, quantity)
       SELECT $1, l.product_id, l.product_name, l.unit_price, l.quantity
       FROM unnest($2::uuid[], $3::text[], $4::numeric[], $5::int[]) WITH ORDINALITY
         AS l(product_id, product_name, unit_price, quantity, position)
       ORDER BY l.position
       RETURNING item_id`,
      [
        orderId,
        lines.map((l) => l.productId),
        lines.map((l) => l.productName),
        lines.map((l) => l.unitPrice),
        lines.map((l) => l.quantity),
      ],
    );
    return rows.map((r) => r.item_id);
  }

  /** Replaces all lines of an order. */
  async replaceLines(db: EntityManager, orderId: string, lines: readonly PricedLine[]): Promise<void> {
    await db.query('DELETE FROM order_items WHERE order_id = $1', [orderId]);
    await this.insertLines(db, orderId, lines);
  }

  /** Removes a line; false when the order has no such line. */
  async deleteLine(db: EntityManager, orderId: string, itemId: string): Promise<boolean> {
    // TypeORM answers a DELETE with [rows, affected row count].
    const [, affected] = (await db.query('DELETE FROM order_items WHERE order_id = $1 AND item_id = $2', [
      orderId,
      itemId,
    ])) as [unknown[], number];
    return affected > 0;
  }

  async delete(db: EntityManager, orderId: string): Promise<void> {
    await db.query('DELETE FROM orders WHERE order_id = $1', [orderId]);
  }

  /**
   * Writes a change of an order and returns the order as it now is, in one statement (`changeSet`).
   */
  async save(
    db: EntityManager,
    orderId: string,
    changes: OrderFieldChanges,
    stamp?: OrderTimestampField,
  ): Promise<Order> {
    const values: unknown[] = [orderId];
    const rows: OrderRow[] = await db.query(
      `WITH changed AS (UPDATE orders SET ${changeSet(changes, stamp, values)} WHERE order_id = $1 RETURNING *)
       SELECT ${orderJson()} AS "order" FROM changed o`,
      values,
    );
    return toOrder(rows[0].order);
  }

  /**
   * Writes the same change to many orders in one statement, with the effects `save` has on each (the
   * batch confirm). Resolves to the number of orders changed.
   */
  async saveMany(
    db: EntityManager,
    orderIds: readonly string[],
    changes: OrderFieldChanges,
    stamp?: OrderTimestampField,
  ): Promise<number> {
    if (orderIds.length === 0) return 0;
    const values: unknown[] = [orderIds];
    // TypeORM answers an UPDATE with [rows, affected row count].
    const [, affected] = (await db.query(
      `UPDATE orders SET ${changeSet(changes, stamp, values)} WHERE order_id = ANY($1::uuid[])`,
      values,
    )) as [unknown[], number];
    return affected;
  }

  /** A page of an order's lines, in the order they were added, and how many it has. */
  async linesPage(
    orderId: string,
    paging: { limit: number; offset: number },
  ): Promise<{ lines: OrderLine[]; total: number }> {
    const rows = await this.pooled.rows<{ total: string; lines: OrderLine[] }>(
      `SELECT (SELECT count(*) FROM order_items WHERE order_id = $1)::bigint AS total,
           COALESCE((SELECT json_agg(json_build_object(
               'itemId', p.item_id, 'productId', p.product_id, 'productName', p.product_name,
               'unitPrice', p.unit_price::text, 'quantity', p.quantity)
             ORDER BY p.created_at, p.item_id)
           FROM (SELECT * FROM order_items WHERE order_id = $1 ORDER BY created_at, item_id LIMIT $2 OFFSET $3) p),
           '[]'::json) AS lines`,
      [orderId, paging.limit, paging.offset],
    );
    return {
      lines: rows[0].lines,
      total: Number(rows[0].total),
    };
  }

  /**
   * A customer's orders in creation order, `limit` at a time after `after` (keyset: the customer index
   * starts at the position, so every chunk costs the same), with the same row mapping as every read, and
   * the key of the last one for the next chunk.
   */
  async readCustomerChunk(
    customerId: string,
    after: CreationKey | undefined,
    limit: number,
  ): Promise<{ orders: Order[]; last?: CreationKey }> {
    const rows = await this.pooled.rows<OrderRow & { creation_key: string }>(
      `SELECT ${orderJson()} AS "order", o.created_at::text AS creation_key FROM orders o
       WHERE o.customer_id = $1
         AND ($2::timestamptz IS NULL OR (o.created_at, o.order_id) > ($2::timestamptz, $3::uuid))
       ORDER BY o.created_at, o.order_id LIMIT $4`,
      [customerId, after?.createdAt ?? null, after?.orderId ?? null, limit],
    );
    const orders = rows.map((r) => toOrder(r.order));
    const last = rows[rows.length - 1];
    return {
      orders,
      ...(last ? { last: { createdAt: last.creation_key, orderId: orders[orders.length - 1].orderId } } : {}),
    };
  }

  async countCustomerOrders(customerId: string): Promise<number> {
    const [{ n }] = await this.pooled.rows<{ n: string }>(
      'SELECT count(*)::bigint AS n FROM orders WHERE customer_id = $1',
      [customerId],
    );
    return Number(n);
  }

  async countCreatedIn(range: CreationRange): Promise<number> {
    const [{ n }] = await this.pooled.rows<{ n: string }>(
      `SELECT count(*)::bigint AS n FROM orders
       WHERE created_at >= ($1::date)::timestamp AT TIME ZONE 'UTC' AND created_at < ($2::date + 1)::timestamp AT TIME ZONE 'UTC'`,
      [range.dateFrom, range.dateTo],
    );
    return Number(n);
  }

  /**
   * Aggregates the next `limit` orders created in `range` after `after` (keyset over the creation index),
   * in one statement: counts and amounts per UTC day and status, quantities and amounts per product.
   */
  async aggregateChunk(
    range: CreationRange,
    after: CreationKey | undefined,
    limit: number,
  ): Promise<OrderAggregateChunk> {
    const [row] = await this.pooled.rows<{
      orders: number;
      last: CreationKey | null;
      days: OrderAggregateChunk['days'];
      products: Array<
        Omit<OrderAggregateChunk['products'][number], 'quantity'> & { quantity: number | string }
      >;
    }>(
      `WITH chunk AS (
         SELECT order_id, created_at, status, total_amount FROM orders
         WHERE created_at >= ($1::date)::timestamp AT TIME ZONE 'UTC'
           AND created_at < ($2::date + 1)::timestamp AT TIME ZONE 'UTC'
           AND ($3::timestamptz IS NULL OR (created_at, order_id) > ($3::timestamptz, $4::uuid))
         ORDER BY created_at, order_id LIMIT $5)
       SELECT
         (SELECT count(*) FROM chunk)::int AS orders,
         (SELECT json_build_object('createdAt', created_at::text, 'orderId', order_id)
            FROM chunk ORDER BY created_at DESC, order_id DESC LIMIT 1) AS last,
         COALESCE((SELECT json_agg(d) FROM (
            SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, status,
                   count(*)::int AS orders, sum(total_amount)::text AS amount
            FROM chunk GROUP BY 1, 2) d), '[]'::json) AS days,
         COALESCE((SELECT json_agg(p) FROM (
            SELECT i.product_id AS "productId", max(i.product_name) AS "productName",
                   sum(i.quantity)::bigint AS quantity, sum(i.unit_price * i.quantity)::text AS amount
            -- LATERAL keeps the lines read through the order index, whatever the chunk size: a hash join would
            -- scan every line of every order for each chunk.
            FROM chunk c CROSS JOIN LATERAL (
              SELECT product_id, product_name, quantity, unit_price FROM order_items WHERE order_id = c.order_id) i
            GROUP BY i.product_id) p), '[]'::json)
           AS products`,
      [range.dateFrom, range.dateTo, after?.createdAt ?? null, after?.orderId ?? null, limit],
    );
    return {
      orders: row.orders,
      ...(row.last ? { last: row.last } : {}),
      days: row.days,
      products: row.products.map((p) => ({ ...p, quantity: Number(p.quantity) })),
    };
  }
}
