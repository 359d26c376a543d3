import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Order, OrderBody, OrderFieldChanges, PricedLine, SettableFields } from '../domain/order';
import { fieldsOf, ORDER_FIELDS, OrderBodyVersion } from '../domain/order-fields';
import type { OrderFilter, OrderScope, SortKey } from '../domain/order-list-criteria';
import type { OrderTimestampField } from '../domain/order-state-machine';
import { Sql } from '../../../platform/database/sql';
import {
  read,
  replicaRead,
  StatementVariants,
  write,
  type WriteStatement,
} from '../../../platform/database/sql-statement';
import type { Tx } from '../../../platform/database/transactions';
import { OrderEvent } from '../../events/event-recorder.service';
import { ORDER_SQL, type OrderSql } from './order-json.sql';
import { keysetPageStatement, offsetPageStatement, PageWindow } from './order-list.sql';

/**
 * Every statement on `orders` and `order_items` that serves an order's life and its lists (reports and
 * exports read through repositories of their own): services hold rules and transactions, this holds SQL.
 * Orders are read in two forms, both generated from the declaration of their fields (order-json.sql.ts):
 * the body the API serves, as JSON text (`OrderBody`), and the model the services' rules judge (`Order`).
 * Every write returns the body of the order it wrote, rendered in the same statement. Write methods take
 * the caller's transaction (`Tx`); the reads run through `Sql`, prepared where their text is fixed.
 */

/** A row holding the model of one order in its column `order`. */
interface OrderRecordRow {
  order: Record<string, unknown>;
}

const BODY_VERSIONS: readonly OrderBodyVersion[] = ['v1', 'v2'];

/** One statement per body version: a `{ v1, v2 }` of `statement(version)`. */
function perVersion<T>(statement: (version: OrderBodyVersion) => T): Record<OrderBodyVersion, T> {
  return Object.fromEntries(BODY_VERSIONS.map((version) => [version, statement(version)])) as Record<
    OrderBodyVersion,
    T
  >;
}

const READ_BODY = perVersion((version) =>
  read(
    `SELECT ${ORDER_SQL.bodyColumns(version)} FROM orders o WHERE o.order_id = $1`,
    `orders.read-${version}`,
  ),
);
const READ_LATEST_BODY = perVersion((version) =>
  read(
    `SELECT ${ORDER_SQL.bodyColumns(version)} FROM orders o WHERE o.customer_id = $1
     ORDER BY o.created_at DESC, o.order_id DESC LIMIT 1`,
    `orders.read-latest-${version}`,
  ),
);
const BODY_JSON = perVersion((version) => ORDER_SQL.body(version));
const SELECT_RECORD = `SELECT ${ORDER_SQL.record()} AS "order" FROM orders o`;
const READ_RECORD = read(`${SELECT_RECORD} WHERE o.order_id = $1`, 'orders.read-record');
const READ_CUSTOMER = read(
  'SELECT customer_id AS "customerId" FROM orders WHERE order_id = $1',
  'orders.read-customer',
);
/** Locks orders in order-id order (concurrent batches take their locks alike, so they never deadlock). */
const LOCK_ORDERS = write(
  'SELECT order_id FROM orders WHERE order_id = ANY($1::uuid[]) ORDER BY order_id FOR UPDATE',
);
const READ_RECORDS = read(`${SELECT_RECORD} WHERE o.order_id = ANY($1::uuid[])`);

/**
 * A customer's pages, prepared: every variant scans that customer's range of the listing index behind its
 * fence, whatever the parameters, so PostgreSQL's generic plan is the custom one without the planning.
 * Admins' lists stay unnamed (across customers a status or date filter's best plan depends on its values).
 * One family per body version, holding its offset and keyset pages.
 */
const CUSTOMER_PAGES = perVersion(
  (version) => new StatementVariants(`orders.customer-page-${version}`, undefined, replicaRead),
);

/** The order of an order's lines `i`: the order they were added in. */
const LINE_ORDER = ORDER_FIELDS.items.orderBy.map((column) => `i.${column}`).join(', ');

/** An order's lines as the items endpoints serve them, a page at a time, with the order's customer. */
const READ_LINES_PAGE = read(
  `SELECT o.customer_id AS "customerId",
     (SELECT count(*) FROM order_items WHERE order_id = o.order_id)::int AS total,
     '[' || COALESCE((SELECT string_agg(${ORDER_SQL.line()}, ',' ORDER BY ${LINE_ORDER})
       FROM (SELECT * FROM order_items i WHERE i.order_id = o.order_id ORDER BY ${LINE_ORDER}
             LIMIT $2 OFFSET $3) i), '') || ']' AS content
   FROM orders o WHERE o.order_id = $1`,
  'orders.read-lines-page',
);
const READ_LINE = read(
  `SELECT o.customer_id AS "customerId",
     (SELECT ${ORDER_SQL.line()} FROM order_items i WHERE i.order_id = o.order_id AND i.item_id = $2) AS line
   FROM orders o WHERE o.order_id = $1`,
  'orders.read-line',
);

const DELETE_LINES = write('DELETE FROM order_items WHERE order_id = $1');
const DELETE_LINE = write('DELETE FROM order_items WHERE order_id = $1 AND item_id = $2');

/**
 * Inserts an order with its lines and total, records its event and returns its v1 body, in one statement
 * (see `insert`), for the orders of `sql` (the service's: `ORDER_SQL`). $1 the customer, then the columns of
 * the fields a client sets (the declaration's), then the lines' product ids, names, prices and quantities,
 * then the event's type and actor: `insertOrderValues`.
 */
export function insertOrderStatement(sql: OrderSql): WriteStatement {
  const settable = sql.settableColumns();
  const linesAt = settable.length + 2;
  return write(
    `
  WITH lines AS (
    SELECT * FROM unnest($${linesAt}::uuid[], $${linesAt + 1}::text[], $${linesAt + 2}::numeric[],
                         $${linesAt + 3}::int[])
      WITH ORDINALITY AS l(product_id, product_name, unit_price, quantity, position)
  ), created AS (
    INSERT INTO orders (customer_id, ${settable.map((c) => c.column).join(', ')}, total_amount)
    SELECT $1, ${settable.map((_, index) => `$${index + 2}`).join(', ')},
      COALESCE((SELECT sum(unit_price * quantity) FROM lines), 0)
    RETURNING *
  ), items AS (
    INSERT INTO order_items (order_id, product_id, product_name, unit_price, quantity)
    SELECT created.order_id, l.product_id, l.product_name, l.unit_price, l.quantity
    FROM created CROSS JOIN lines l ORDER BY l.position
    RETURNING *
  ), body AS (
    SELECT ${sql.bodyColumns('v1', 'items')} FROM created o
  ), recorded AS (
    ${OrderEvent.sql('body', linesAt + 4)}
  )
  SELECT * FROM body`,
    'orders.insert',
  );
}

/** The values of `insertOrderStatement(sql)`. */
export function insertOrderValues(
  sql: OrderSql,
  order: Readonly<Record<string, unknown>> & { customerId: string },
  lines: readonly PricedLine[],
  event: OrderEvent,
): unknown[] {
  return [
    order.customerId,
    ...sql.settableColumns().map((settable) => settable.valueOf(order)),
    lines.map((l) => l.productId),
    lines.map((l) => l.productName),
    lines.map((l) => l.unitPrice),
    lines.map((l) => l.quantity),
    ...event.values(),
  ];
}

const INSERT_ORDER = insertOrderStatement(ORDER_SQL);
/** The columns a client sets, from the declaration. */
const SETTABLE = ORDER_SQL.settableColumns();

/**
 * One order per line, each holding that line and the same settable fields (the order batch), with an event
 * each: $1 the customer, $2 the new order ids, $3–$6 the lines, then the settable columns.
 */
const INSERT_SINGLE_LINE_ORDERS = write(
  `WITH line AS (
     SELECT * FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::numeric[], $6::int[]) WITH ORDINALITY
       AS l(order_id, product_id, product_name, unit_price, quantity, position)),
   new_order AS (
     INSERT INTO orders (order_id, customer_id, ${SETTABLE.map((c) => c.column).join(', ')}, total_amount, created_at)
     SELECT order_id, $1, ${SETTABLE.map((_, index) => `$${index + 7}`).join(', ')}, unit_price * quantity,
       clock_timestamp()
     FROM line ORDER BY position
     RETURNING *),
   new_items AS (
     INSERT INTO order_items (order_id, product_id, product_name, unit_price, quantity)
     SELECT order_id, product_id, product_name, unit_price, quantity FROM line ORDER BY position
     RETURNING *),
   body AS (SELECT ${ORDER_SQL.bodyColumns('v1', 'new_items')} FROM new_order o ORDER BY o.created_at)
   ${OrderEvent.sql('body', SETTABLE.length + 7)}`,
  'orders.insert-single-line-orders',
);

/** A new order: its customer and the fields a client set. */
export type NewOrder = SettableFields & { customerId: string };

/**
 * The SET list of a change of an order (`save`, `saveMany`), its values appended to `values`: the changed
 * fields (their columns from the declaration; `null` clears), the action's time stamp (the database clock,
 * so an order's stamps are mutually consistent), the total recomputed from the lines, the version bumped
 * (the ETag changes) and `updatedAt` set.
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
  for (const [name, value] of Object.entries(changes) as Array<[keyof typeof ORDER_FIELDS, unknown]>) {
    if (value === undefined) continue;
    const field = ORDER_FIELDS[name];
    if (field.kind === 'object') {
      for (const [member, declaration] of fieldsOf(field.members)) {
        assign(declaration.column, (value as Record<string, unknown> | null)?.[member] ?? null);
      }
    } else if (field.kind !== 'lines') {
      assign(field.column, value);
    }
  }
  if (stamp) set.push(`${ORDER_FIELDS[stamp].column} = now()`);
  set.push(
    `total_amount = COALESCE((SELECT sum(i.unit_price * i.quantity) FROM order_items i
       WHERE i.order_id = orders.order_id), 0)`,
    'version = version + 1',
    'updated_at = now()',
  );
  return set.join(', ');
}

@Injectable()
export class OrdersRepository {
  constructor(private readonly sql: Sql) {}

  /** An order's body as `version` serves it. */
  async readBody(orderId: string, version: OrderBodyVersion): Promise<OrderBody | undefined> {
    const [row] = await this.sql.rows<OrderBody>(READ_BODY[version], [orderId]);
    return row;
  }

  /** The customer's most recent order (the `latest` alias), as `version` serves it. */
  async readLatestBody(customerId: string, version: OrderBodyVersion): Promise<OrderBody | undefined> {
    const [row] = await this.sql.rows<OrderBody>(READ_LATEST_BODY[version], [customerId]);
    return row;
  }

  /** The customer an order belongs to; undefined when there is no such order. */
  async readCustomerId(orderId: string): Promise<string | undefined> {
    const [row] = await this.sql.rows<{ customerId: string }>(READ_CUSTOMER, [orderId]);
    return row?.customerId;
  }

  /** An order as the model holds it. */
  async read(orderId: string): Promise<Order | undefined> {
    const [row] = await this.sql.rows<OrderRecordRow>(READ_RECORD, [orderId]);
    return row ? ORDER_SQL.toOrder(row.order) : undefined;
  }

  /**
   * Locks an order's row until the transaction ends, so writers of one order serialize, then reads it. Two
   * statements, as readManyForUpdate: a statement that waited for the lock re-reads the locked row but sees
   * the rest (the order's lines) as of its start, so one statement would miss the lines the previous holder
   * of the lock added, and a confirm would reserve stock for the lines it saw.
   */
  async readForUpdate(tx: Tx, orderId: string): Promise<Order | undefined> {
    const [order] = await this.readManyForUpdate(tx, [orderId]);
    return order;
  }

  /**
   * Locks the orders of `orderIds` that exist in one statement, in order-id order (concurrent batches
   * take their locks in the same order, so they never deadlock), then reads them with their items in a
   * second one: its snapshot is taken after the locks, so it sees every change committed before them.
   */
  async readManyForUpdate(tx: Tx, orderIds: readonly string[]): Promise<Order[]> {
    const locked = await tx.rows<{ order_id: string }>(LOCK_ORDERS, [orderIds]);
    if (locked.length === 0) return [];
    const rows = await tx.rows<OrderRecordRow>(READ_RECORDS, [locked.map((r) => r.order_id)]);
    return rows.map((r) => ORDER_SQL.toOrder(r.order));
  }

  /**
   * One offset page of a list (`offsetPageStatement`): its orders as `version` serves them, as the text of a
   * JSON array, and the exact size of the list.
   */
  async offsetPage(
    filter: OrderFilter,
    scope: OrderScope,
    sort: readonly SortKey[],
    window: PageWindow & { offset: number },
    version: OrderBodyVersion,
  ): Promise<{ contentJson: string; total: number }> {
    const { sql, values } = offsetPageStatement(filter, scope, sort, window, BODY_JSON[version]);
    const [row] = await this.sql.rows<{ total: string; content: string }>(
      scope.customerId ? CUSTOMER_PAGES[version].of(sql) : replicaRead(sql),
      values,
    );
    return { contentJson: row.content, total: Number(row.total) };
  }

  /**
   * One keyset page of a list (`keysetPageStatement`): its orders as `version` serves them, each as JSON text,
   * with the values of their sort keys (for the cursors), in the order read.
   */
  async keysetPage(
    filter: OrderFilter,
    scope: OrderScope,
    sort: readonly SortKey[],
    window: PageWindow,
    version: OrderBodyVersion,
  ): Promise<{ bodies: string[]; keys: string[][] }> {
    const { sql, values } = keysetPageStatement(filter, scope, sort, window, BODY_JSON[version]);
    const rows = await this.sql.rows<Record<string, string>>(
      scope.customerId ? CUSTOMER_PAGES[version].of(sql) : replicaRead(sql),
      values,
    );
    const keyNames = Array.from({ length: sort.length + 1 }, (_, i) => `k${i}`);
    return {
      bodies: rows.map((row) => row.body),
      keys: rows.map((row) => keyNames.map((name) => row[name])),
    };
  }

  /**
   * Inserts an order, its lines and its total and returns its v1 body, in one statement (data-modifying
   * CTEs), in the caller's transaction: nothing to read afterwards. Lines keep their request order
   * (`created_at` is the clock time of each row); the total is the sum of the frozen prices, computed by
   * PostgreSQL in `numeric`. The order's `event` is recorded by the same statement.
   */
  async insert(tx: Tx, order: NewOrder, lines: readonly PricedLine[], event: OrderEvent): Promise<OrderBody> {
    const [body] = await tx.rows<OrderBody>(INSERT_ORDER, insertOrderValues(ORDER_SQL, order, lines, event));
    event.recorded(1);
    return body;
  }

  /**
   * One new order of `customerId` per line, each holding that one line and the settable `fields` given (the
   * default delivery address), in one statement however many lines there are (the order batch), each with its `event`. `clock_timestamp()`
   * stamps the orders in line order. Resolves to the order ids in line order.
   */
  async insertSingleLineOrders(
    tx: Tx,
    customerId: string,
    lines: readonly PricedLine[],
    fields: SettableFields,
    event: OrderEvent,
  ): Promise<string[]> {
    const orderIds = lines.map(() => randomUUID());
    await tx.rowCount(INSERT_SINGLE_LINE_ORDERS, [
      customerId,
      orderIds,
      lines.map((l) => l.productId),
      lines.map((l) => l.productName),
      lines.map((l) => l.unitPrice),
      lines.map((l) => l.quantity),
      ...SETTABLE.map((settable) => settable.valueOf(fields)),
      ...event.values(),
    ]);
    event.recorded(orderIds.length);
    return orderIds;
  }

  /**
   * Adds lines to an order (in line order); resolves to their item ids and their bodies as the items
   * endpoints serve them. The total is recomputed by `save`.
   */
  async insertLines(
    tx: Tx,
    orderId: string,
    lines: readonly PricedLine[],
  ): Promise<Array<{ itemId: string; json: string }>> {
    if (lines.length === 0) return [];
    return tx.rows<{ itemId: string; json: string }>(
      write(`INSERT INTO order_items AS i (order_id, product_id, product_name, unit_price, quantity)
       SELECT $1, l.product_id, l.product_name, l.unit_price, l.quantity
       FROM unnest($2::uuid[], $3::text[], $4::numeric[], $5::int[]) WITH ORDINALITY
         AS l(product_id, product_name, unit_price, quantity, position)
       ORDER BY l.position
       RETURNING i.item_id AS "itemId", ${ORDER_SQL.line()} AS "json"`),
      [
        orderId,
        lines.map((l) => l.productId),
        lines.map((l) => l.productName),
        lines.map((l) => l.unitPrice),
        lines.map((l) => l.quantity),
      ],
    );
  }

  /** Replaces all lines of an order. */
  async replaceLines(tx: Tx, orderId: string, lines: readonly PricedLine[]): Promise<void> {
    await tx.rowCount(DELETE_LINES, [orderId]);
    await this.insertLines(tx, orderId, lines);
  }

  /** Removes a line; false when the order has no such line. */
  async deleteLine(tx: Tx, orderId: string, itemId: string): Promise<boolean> {
    return (await tx.rowCount(DELETE_LINE, [orderId, itemId])) > 0;
  }

  /** Deletes an order and records its `event` with the order as it was, in one statement. */
  async delete(tx: Tx, orderId: string, event: OrderEvent): Promise<void> {
    await tx.rowCount(
      write(`WITH gone AS (SELECT ${ORDER_SQL.bodyColumns('v1')} FROM orders o WHERE o.order_id = $1),
       recorded AS (${OrderEvent.sql('gone', 2)})
       DELETE FROM orders WHERE order_id = $1`),
      [orderId, ...event.values()],
    );
    event.recorded(1);
  }

  /**
   * Writes a change of an order, records its `event` and returns its v1 body as it now is, rendered in the
   * same statement from the row it wrote (`changeSet`): the event's data is that body.
   */
  async save(
    tx: Tx,
    orderId: string,
    changes: OrderFieldChanges,
    stamp: OrderTimestampField | undefined,
    event: OrderEvent,
  ): Promise<OrderBody> {
    const values: unknown[] = [orderId];
    const set = changeSet(changes, stamp, values);
    const [row] = await tx.rows<OrderBody>(
      write(`WITH changed AS (UPDATE orders SET ${set} WHERE order_id = $1 RETURNING *),
       body AS (SELECT ${ORDER_SQL.bodyColumns('v1')} FROM changed o),
       recorded AS (${OrderEvent.sql('body', values.length + 1)})
       SELECT * FROM body`),
      [...values, ...event.values()],
    );
    event.recorded(1);
    return row;
  }

  /**
   * Writes the same change to many orders in one statement, with the effects `save` has on each and an
   * `event` for each (the batch confirm). Resolves to the number of orders changed.
   */
  async saveMany(
    tx: Tx,
    orderIds: readonly string[],
    changes: OrderFieldChanges,
    stamp: OrderTimestampField | undefined,
    event: OrderEvent,
  ): Promise<number> {
    if (orderIds.length === 0) return 0;
    const values: unknown[] = [orderIds];
    const set = changeSet(changes, stamp, values);
    const [{ changed }] = await tx.rows<{ changed: number }>(
      write(`WITH changed AS (UPDATE orders SET ${set} WHERE order_id = ANY($1::uuid[]) RETURNING *),
       body AS (SELECT ${ORDER_SQL.bodyColumns('v1')} FROM changed o ORDER BY o.order_id),
       recorded AS (${OrderEvent.sql('body', values.length + 1)})
       SELECT count(*)::int AS changed FROM body`),
      [...values, ...event.values()],
    );
    event.recorded(changed);
    return changed;
  }

  /**
   * A page of an order's lines as the items endpoints serve them (the text of a JSON array), in the order
   * they were added, how many it has, and the order's customer; undefined when there is no such order.
   */
  async linesPage(
    orderId: string,
    paging: { limit: number; offset: number },
  ): Promise<{ customerId: string; contentJson: string; total: number } | undefined> {
    const [row] = await this.sql.rows<{ customerId: string; total: number; content: string }>(
      READ_LINES_PAGE,
      [orderId, paging.limit, paging.offset],
    );
    return row && { customerId: row.customerId, contentJson: row.content, total: row.total };
  }

  /**
   * A line as the items endpoints serve it (null when the order has no such line), with the order's
   * customer; undefined when there is no such order.
   */
  async readLine(
    orderId: string,
    itemId: string,
  ): Promise<{ customerId: string; json: string | null } | undefined> {
    const [row] = await this.sql.rows<{ customerId: string; line: string | null }>(READ_LINE, [
      orderId,
      itemId,
    ]);
    return row && { customerId: row.customerId, json: row.line };
  }
}
