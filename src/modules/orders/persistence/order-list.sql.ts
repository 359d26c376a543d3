import type {
  OrderFilter,
  OrderScope,
  SortDirection,
  SortField,
  SortKey,
} from '../domain/order-list-criteria';

/**
 * The SQL of every order list: the GET list (offset or cursor paging) and POST /orders/search reduce their
 * parameters to an OrderFilter and sort keys (domain/order-list-criteria.ts), and this turns them into
 * parameterized SQL for the repository. User input only ever travels as bind parameters.
 */

/** Sort expressions and the SQL types their cursor values are cast back to. `updatedAt` falls back to createdAt. */
const SORT_SQL: Record<SortField, { expression: string; type: string }> = {
  createdAt: { expression: 'o.created_at', type: 'timestamptz' },
  updatedAt: { expression: 'COALESCE(o.updated_at, o.created_at)', type: 'timestamptz' },
  totalAmount: { expression: 'o.total_amount', type: 'numeric' },
  status: { expression: 'o.status', type: 'text' },
};

export class SqlParameters {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * The rows a query starts from, and the conditions on them. A customer's orders (scope or filter) are
 * fetched through the customer index behind an optimization fence (`OFFSET 0`): a customer owns few
 * orders, while the planner would otherwise walk a global sort or trigram index and filter millions.
 * `order`, given when the customer index yields the page's order (one customer, sorted by creation
 * time), is repeated inside the fence: the index then hands rows over in order and the page's LIMIT stops
 * the scan after one page instead of sorting all the customer's orders.
 */
export function querySource(
  filter: OrderFilter,
  scope: OrderScope,
  p: SqlParameters,
  order?: string,
): { from: string; where: string[] } {
  const customers = scope.customerId ? [scope.customerId] : filter.customerIds;
  const where = whereConditions(filter, p);
  if (scope.customerId && filter.customerIds?.length) {
    where.unshift(`o.customer_id = ANY(${p.add(filter.customerIds)}::uuid[])`);
  }
  if (!customers?.length) return { from: 'orders o', where };
  if (customers.length === 1) {
    return {
      from: `(SELECT * FROM orders o WHERE o.customer_id = ${p.add(customers[0])}::uuid${order ? ` ORDER BY ${order}` : ''} OFFSET 0) o`,
      where,
    };
  }
  return {
    from: `(SELECT * FROM orders WHERE customer_id = ANY(${p.add(customers)}::uuid[]) OFFSET 0) o`,
    where,
  };
}

function whereConditions(filter: OrderFilter, p: SqlParameters): string[] {
  const where: string[] = [];
  if (filter.statuses?.length) where.push(`o.status = ANY(${p.add(filter.statuses)}::text[])`);
  if (filter.dateFrom)
    where.push(`o.created_at >= (${p.add(filter.dateFrom)}::date)::timestamp AT TIME ZONE 'UTC'`);
  if (filter.dateTo)
    where.push(`o.created_at < (${p.add(filter.dateTo)}::date + 1)::timestamp AT TIME ZONE 'UTC'`);
  if (filter.amountFrom !== undefined) where.push(`o.total_amount >= ${p.add(filter.amountFrom)}`);
  if (filter.amountTo !== undefined) where.push(`o.total_amount <= ${p.add(filter.amountTo)}`);
  if (filter.q) where.push(`o.search_text LIKE ${p.add(`%${escapeLike(filter.q.toLowerCase())}%`)}`);
  if (filter.regionIds?.length || filter.segment) {
    const users: string[] = [];
    if (filter.regionIds?.length) users.push(`u.region_id = ANY(${p.add(filter.regionIds)}::int[])`);
    if (filter.segment) users.push(`u.segment = ${p.add(filter.segment)}`);
    where.push(`o.customer_id IN (SELECT u.user_id FROM users u WHERE ${users.join(' AND ')})`);
  }
  return where;
}

/** `FROM … WHERE …` of a query. */
export function fromWhere(source: { from: string; where: string[] }): string {
  return `FROM ${source.from}${source.where.length ? ` WHERE ${source.where.join(' AND ')}` : ''}`;
}

/** The tie-breaker follows the last key's direction, so the full key is one consistent order. */
function keys(
  sort: readonly SortKey[],
): Array<{ expression: string; type: string; direction: SortDirection }> {
  const last = sort[sort.length - 1]?.direction ?? 'desc';
  return [
    ...sort.map((k) => ({ ...SORT_SQL[k.field], direction: k.direction })),
    { expression: 'o.order_id', type: 'uuid', direction: last },
  ];
}

export function orderBy(sort: readonly SortKey[], reverse = false): string {
  return keys(sort)
    .map((k) => `${k.expression} ${(k.direction === 'asc') !== reverse ? 'ASC' : 'DESC'}`)
    .join(', ');
}

/**
 * An instant as text that casts back to the same `timestamptz` (microseconds kept), whatever the session's
 * TimeZone and DateStyle: UTC with an explicit offset.
 */
export function instantKeyText(expression: string): string {
  return `to_char((${expression}) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US"+00"')`;
}

/** A key value as text that casts back to the same value (instants and numerics exactly). */
function keyText(key: { expression: string; type: string }): string {
  return key.type === 'timestamptz' ? instantKeyText(key.expression) : `(${key.expression})::text`;
}

/** The key values of a row as text, `k0…kn`. */
export function keySelect(sort: readonly SortKey[]): string {
  return keys(sort)
    .map((k, i) => `${keyText(k)} AS k${i}`)
    .join(', ');
}

/**
 * Keyset condition: rows strictly after (or before) the row whose keys are `values`, in the sort order.
 * One direction for all keys is a row comparison, which an index range scan starts at directly; mixed
 * directions expand to (a > x) OR (a = x AND b > y) … plus an inclusive bound on the first key, so the
 * index on it still starts at the cursor instead of scanning from the top.
 */
export function keysetCondition(
  sort: readonly SortKey[],
  values: string[],
  after: boolean,
  p: SqlParameters,
): string {
  const all = keys(sort);
  const placeholders = all.map((k, i) => `${p.add(values[i])}::${k.type}`);
  const op = (k: { direction: SortDirection }, strict: boolean) =>
    `${(k.direction === 'asc') === after ? '>' : '<'}${strict ? '' : '='}`;
  if (all.every((k) => k.direction === all[0].direction)) {
    return `((${all.map((k) => k.expression).join(', ')}) ${op(all[0], true)} (${placeholders.join(', ')}))`;
  }
  const alternatives = all.map((k, i) => {
    const equal = all.slice(0, i).map((prev, j) => `${prev.expression} = ${placeholders[j]}`);
    return [...equal, `${k.expression} ${op(k, true)} ${placeholders[i]}`].join(' AND ');
  });
  return `(${all[0].expression} ${op(all[0], false)} ${placeholders[0]} AND (${alternatives.map((a) => `(${a})`).join(' OR ')}))`;
}

/** Which rows of a sorted list a page holds. */
export interface PageWindow {
  limit: number;
  /** Offset paging: rows skipped. */
  offset?: number;
  /** Keyset paging: the rows after (`forward`) or before the row whose sort keys are `values`. */
  after?: { values: string[]; forward: boolean };
  /** Read in the opposite sort order (a backward cursor page, reversed by the caller). */
  reverse?: boolean;
}

/** The `page` CTE of a page statement: the page's ids (and key values) from the sort index, and its total. */
function pagePart(
  filter: OrderFilter,
  scope: OrderScope,
  sort: readonly SortKey[],
  window: PageWindow,
  options: { total: boolean },
): { cte: string; total: string; p: SqlParameters; reverse: boolean } {
  const p = new SqlParameters();
  const reverse = window.reverse ?? false;
  const byCreation = sort.length === 1 && sort[0].field === 'createdAt';
  const source = querySource(filter, scope, p, byCreation ? orderBy(sort, reverse) : undefined);
  if (window.after) source.where.push(keysetCondition(sort, window.after.values, window.after.forward, p));
  const keyed = window.offset === undefined;
  const total = options.total ? `(${totalExpression(filter, scope, p)})` : 'NULL';
  const cte = `WITH page AS (
      SELECT o.order_id${keyed ? `, ${keySelect(sort)}` : ''} ${fromWhere(source)}
      ORDER BY ${orderBy(sort, reverse)} LIMIT ${p.add(window.limit)}
      ${window.offset !== undefined ? `OFFSET ${p.add(window.offset)}` : ''})`;
  return { cte, total, p, reverse };
}

/**
 * An offset page in one statement, as one row: `content`, the page's orders as the text of a JSON array
 * (each order rendered by `orderBody`, JSON text of the row `o`), and `total`, the exact size of the list
 * (an offset page always states it). The page's ids come from the sort index (an index-only scan where the
 * index covers it) and only those orders are read; the driver reads the content as text, with nothing to
 * parse.
 */
export function offsetPageStatement(
  filter: OrderFilter,
  scope: OrderScope,
  sort: readonly SortKey[],
  window: PageWindow & { offset: number },
  orderBody: string,
): { sql: string; values: unknown[] } {
  const { cte, total, p } = pagePart(filter, scope, sort, window, { total: true });
  const sql = `${cte}
    SELECT ${total}::text AS total,
      '[' || COALESCE((SELECT string_agg(${orderBody}, ',' ORDER BY ${orderBy(sort)})
                FROM page JOIN orders o ON o.order_id = page.order_id), '') || ']' AS content`;
  return { sql, values: p.values };
}

/**
 * A keyset page in one statement: a row per order in the page's order (reversed when `window.reverse`),
 * each with its sort-key values `k0…kn` (for the cursors) and `body`, the order rendered by `orderBody`.
 */
export function keysetPageStatement(
  filter: OrderFilter,
  scope: OrderScope,
  sort: readonly SortKey[],
  window: PageWindow,
  orderBody: string,
): { sql: string; values: unknown[] } {
  const { cte, p, reverse } = pagePart(filter, scope, sort, window, { total: false });
  const keyColumns = keys(sort)
    .map((_, i) => `page.k${i}`)
    .join(', ');
  const sql = `${cte}
    SELECT ${keyColumns}, ${orderBody} AS body
      FROM page JOIN orders o ON o.order_id = page.order_id
      ORDER BY ${orderBy(sort, reverse)}`;
  return { sql, values: p.values };
}

/**
 * The exact size of a list under its filters: `count(*)`, except for the admin's "everything" and "by
 * status" lists, which are read from the status counters (order_status_counts) without any scan.
 */
export function totalExpression(filter: OrderFilter, scope: OrderScope, p: SqlParameters): string {
  const onlyStatuses = Object.entries(filter).every(
    ([key, value]) => key === 'statuses' || value === undefined,
  );
  if (!scope.customerId && onlyStatuses) {
    return `SELECT COALESCE(sum(n), 0)::bigint FROM order_status_counts${
      filter.statuses?.length ? ` WHERE status = ANY(${p.add(filter.statuses)}::text[])` : ''
    }`;
  }
  return `SELECT count(*)::bigint ${fromWhere(querySource(filter, scope, p))}`;
}
