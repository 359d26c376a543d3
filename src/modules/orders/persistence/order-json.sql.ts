import type { Order } from '../domain/order';
import {
  FieldDeclaration,
  fieldsOf,
  LinesField,
  ORDER_FIELDS,
  OrderBodyVersion,
  ScalarField,
  servedName,
  settableFieldsOf,
} from '../domain/order-fields';

/**
 * The SQL that reads an order, generated from the declaration of its fields (domain/order-fields.ts;
 * `ORDER_SQL` is the service's, `orderSql` makes it of any declaration):
 * - `body(version)`: the order's body as the v1 or v2 API serves it, as JSON text. The one renderer of
 *   order bodies: single reads, list pages, search, the answers of writes, exports. A write statement
 *   renders the order it wrote from its own `RETURNING` rows, so the body of a change is known inside the
 *   change's transaction, before it commits.
 * - `line()`: a line as the items endpoints serve it.
 * - `record()`: the model (`Order`) as one JSON value, which `toOrder` reads: what the services' rules
 *   judge.
 * - `settableColumns()`: the columns of the fields a client sets, with the value each takes: what a create
 *   inserts (orders.repository.ts) and what a change writes.
 * Each is an expression over the row `o` of `orders` (a table row, or a row a statement just wrote) whose
 * lines are the rows `i` of `lines`: the lines' table, or the CTE that wrote them (a statement does not see
 * its own writes).
 *
 * The bodies follow the JSON output rules, in SQL (docs/decisions/0023-json-output-rules.md):
 * - a field without a value is left out: each member is `"name":value`, NULL when the value is (a NULL
 *   operand makes `||` NULL), and `concat_ws` skips NULLs; an empty text counts as none (`NULLIF(…, '')`);
 * - strings are JSON string literals (`to_json`: the same escapes as JSON.stringify);
 * - v1 money is a JSON number: `trim_scale` prints 209.00 as 209 and 24.50 as 24.5, as JavaScript prints the
 *   Number of the decimal (numeric(12,2) has at most 12 significant digits and never needs an exponent; the
 *   schema refuses 'NaN'); v2 money is its decimal text with both decimals, and the order's currency;
 * - instants are `YYYY-MM-DDThh:mm:ssZ` in UTC, the fraction cut (`to_char`'s SS truncates), converted to
 *   UTC explicitly, whatever the session's TimeZone; the schema holds them to years 1–9999, which that
 *   format prints;
 * - an object exists when each of its columns holds a value; lines in the order they were added.
 */

const ORDER = 'o';
const LINE = 'i';
const SERVED_INSTANT = `'YYYY-MM-DD"T"HH24:MI:SS"Z"'`;
/** Instants of the model keep their milliseconds, which `Date` holds. */
const MODEL_INSTANT = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/** A declaration of an order's fields. */
type Fields = Readonly<Record<string, FieldDeclaration>>;

/** `"name":value` of a JSON object, NULL (left out) when `value` is NULL. */
function jsonMember(name: string, value: string): string {
  return `'"${name}":' || ${value}`;
}

/** A JSON object of the members given (each possibly NULL), as text. */
function jsonObject(members: string[]): string {
  return `'{' || concat_ws(',', ${members.join(',\n    ')}) || '}'`;
}

/** Whether an object's columns all hold a value. */
function present(members: Readonly<Record<string, ScalarField>>, alias: string): string {
  return fieldsOf(members)
    .map(([, member]) => `${alias}.${member.column} IS NOT NULL`)
    .join(' AND ');
}

/** The field of `fields` of a kind that an order has once (its lines, its currency). */
function only(fields: Fields, kind: FieldDeclaration['kind']): FieldDeclaration {
  const found = fieldsOf(fields).filter(([, field]) => field.kind === kind);
  if (found.length !== 1)
    throw new Error(`an order declares ${found.length} fields of kind ${kind}, not one`);
  return found[0][1];
}

/** The column of the scalar field `name` of `fields`. */
function columnOf(fields: Fields, name: string): string {
  const field = fields[name];
  if (!field || field.kind === 'object' || field.kind === 'lines') throw new Error(`no column ${name}`);
  return field.column;
}

/** The SQL forms of an order whose fields are `fields`. */
export function orderSql(fields: Fields) {
  const lines = only(fields, 'lines') as LinesField;
  const currency = `${ORDER}.${(only(fields, 'currency') as ScalarField).column}`;

  /** A scalar of the row `alias` as a body serves it, JSON text; NULL when it has no value. */
  function servedValue(field: ScalarField, alias: string, version: OrderBodyVersion): string {
    const column = `${alias}.${field.column}`;
    switch (field.kind) {
      case 'uuid':
      case 'status':
      case 'currency':
        return `to_json(${column})`;
      case 'text':
        return `to_json(NULLIF(${column}, ''))`;
      case 'integer':
        return `${column}::text`;
      case 'timestamp':
        return `'"' || to_char(${column} AT TIME ZONE 'UTC', ${SERVED_INSTANT}) || '"'`;
      case 'money':
        return version === 'v1'
          ? `trim_scale(${column})::text`
          : `'{"amount":"' || ${column}::text || '","currency":' || to_json(${currency}) || '}'`;
    }
  }

  /** The lines of the order `o` in `from`, as `aggregate` over `element` (each line `i`), in their order. */
  function linesOf(from: string, aggregate: 'string_agg' | 'json_agg', element: string): string {
    const order = lines.orderBy.map((column) => `${LINE}.${column}`).join(', ');
    const separator = aggregate === 'string_agg' ? ", ','" : '';
    return `(SELECT ${aggregate}(${element}${separator} ORDER BY ${order})
      FROM ${from} ${LINE} WHERE ${LINE}.${lines.orderKey} = ${ORDER}.${lines.orderKey})`;
  }

  /** The members of a body of `of` (of the row `alias`), each NULL when left out. */
  function bodyMembers(of: Fields, alias: string, version: OrderBodyVersion, from: string): string[] {
    return fieldsOf(of).flatMap(([name, field]) => {
      const served = servedName(name, field, version);
      switch (field.kind) {
        case 'object': {
          const object = jsonObject(bodyMembers(field.members, alias, version, from));
          return [`CASE WHEN ${present(field.members, alias)} THEN ${jsonMember(served, object)} END`];
        }
        case 'lines': {
          const line = jsonObject(bodyMembers(field.members, LINE, version, from));
          return [jsonMember(served, `'[' || COALESCE(${linesOf(from, 'string_agg', line)}, '') || ']'`)];
        }
        default:
          return field.internal ? [] : [jsonMember(served, servedValue(field, alias, version))];
      }
    });
  }

  /** A scalar of the row `alias` as the model holds it. */
  function modelValue(field: ScalarField, alias: string): string {
    const column = `${alias}.${field.column}`;
    if (field.kind === 'timestamp') return `to_char(${column} AT TIME ZONE 'UTC', ${MODEL_INSTANT})`;
    if (field.kind === 'money') return `${column}::text`;
    return column;
  }

  /** `json_build_object` of the model's members of `of` (of the row `alias`). */
  function modelObject(of: Fields, alias: string, from: string): string {
    const members = fieldsOf(of).map(([name, field]) => {
      switch (field.kind) {
        case 'object':
          return `'${name}', CASE WHEN ${present(field.members, alias)} THEN ${modelObject(field.members, alias, from)} END`;
        case 'lines':
          return `'${name}', COALESCE(${linesOf(from, 'json_agg', modelObject(field.members, LINE, from))}, '[]'::json)`;
        default:
          return `'${name}', ${modelValue(field, alias)}`;
      }
    });
    return `json_build_object(${members.join(',\n    ')})`;
  }

  /** The body of the order `o` as `version` serves it, JSON text (lines from `from`). */
  function body(version: OrderBodyVersion, from: string = lines.table): string {
    return jsonObject(bodyMembers(fields, ORDER, version, from));
  }

  return {
    body,

    /**
     * The select list of an `OrderBody`: the order `o`'s id, customer and version, and its body as
     * `version` serves it (lines from `from`).
     */
    bodyColumns(version: OrderBodyVersion, from: string = lines.table): string {
      const column = (name: string) => `${ORDER}.${columnOf(fields, name)}`;
      return `${column('orderId')} AS "orderId", ${column('customerId')} AS "customerId",
        ${column('version')} AS version, ${body(version, from)} AS "json"`;
    },

    /** The line `i` as the (v1) items endpoints serve it, JSON text. */
    line(): string {
      return jsonObject(bodyMembers(lines.members, LINE, 'v1', lines.table));
    },

    /** The model of the order `o` (lines from `from`) as one JSON value, for `toOrder`. */
    record(from: string = lines.table): string {
      return modelObject(fields, ORDER, from);
    },

    /**
     * The columns of the fields a client sets, in the declaration's order (an object's members each), with
     * the value each takes from an order's fields (null when it has none).
     */
    settableColumns(): Array<{
      column: string;
      valueOf(fields: Readonly<Record<string, unknown>>): unknown;
    }> {
      return settableFieldsOf(fields).flatMap(([name, field]) =>
        field.kind === 'object'
          ? fieldsOf(field.members).map(([member, declaration]) => ({
              column: declaration.column,
              valueOf: (of: Readonly<Record<string, unknown>>) =>
                (of[name] as Record<string, unknown> | null | undefined)?.[member] ?? null,
            }))
          : [{ column: field.column, valueOf: (of: Readonly<Record<string, unknown>>) => of[name] ?? null }],
      );
    },

    /** The order `record()` wrote: its members as they are, instants as `Date`s, no value left out. */
    toOrder(record: Readonly<Record<string, unknown>>): Order {
      const order: Record<string, unknown> = {};
      for (const [name, field] of fieldsOf(fields)) {
        const value = record[name];
        if (value === null || value === undefined) continue;
        order[name] = field.kind === 'timestamp' ? new Date(value as string) : value;
      }
      return order as Order;
    },
  };
}

/** The SQL forms of the orders of a declaration. */
export type OrderSql = ReturnType<typeof orderSql>;

/** The SQL forms of the service's orders. */
export const ORDER_SQL = orderSql(ORDER_FIELDS);
