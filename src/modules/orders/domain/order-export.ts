import { FieldDeclaration, fieldsOf, ORDER_FIELDS } from './order-fields';

/**
 * A customer export's records, derived from the declaration of the order's fields (order-fields.ts). A JSON
 * export holds the orders as the v1 API serves them; a CSV export has a row per line, repeating its
 * order's fields, and a row with empty line cells for an order without lines. The CSV columns are the v1
 * body's fields, the members of an object under their export names, then the lines' fields; a cell is the
 * value as v1 serves it (empty when v1 leaves the field out), so both formats say the same.
 */

/** A value of a v1 body as JSON parses it: an object's members by name. */
type JsonObject = Readonly<Record<string, unknown>>;

/** A CSV cell: a v1 value (text or number), undefined when the body leaves the field out. */
export type ExportCell = string | number | undefined;

interface ExportColumn {
  name: string;
  /** The cell of an order's row, for one of its lines (absent in the row of an order without lines). */
  cell: (order: JsonObject, line: JsonObject | undefined) => ExportCell;
}

/** The export records of an order whose fields are `fields`: its CSV columns, and an order's rows. */
export function orderExport(fields: Readonly<Record<string, FieldDeclaration>>): {
  columns: readonly string[];
  rows: (body: JsonObject) => ExportCell[][];
} {
  const orderColumns: ExportColumn[] = [];
  const lineColumns: ExportColumn[] = [];
  let lines = '';
  for (const [name, field] of fieldsOf(fields)) {
    if (field.kind === 'object') {
      for (const [member, declaration] of fieldsOf(field.members)) {
        orderColumns.push({
          name: declaration.exportColumn ?? member,
          cell: (body) => (body[name] as JsonObject | undefined)?.[member] as ExportCell,
        });
      }
    } else if (field.kind === 'lines') {
      lines = name;
      for (const [member] of fieldsOf(field.members)) {
        lineColumns.push({ name: member, cell: (_body, line) => line?.[member] as ExportCell });
      }
    } else if (!field.internal) {
      orderColumns.push({ name: field.exportColumn ?? name, cell: (body) => body[name] as ExportCell });
    }
  }
  const columns = [...orderColumns, ...lineColumns];
  return {
    columns: columns.map((column) => column.name),
    rows: (body) => {
      const rowOf = (line: JsonObject | undefined) => columns.map((column) => column.cell(body, line));
      const bodyLines = (body[lines] as JsonObject[] | undefined) ?? [];
      return bodyLines.length === 0 ? [rowOf(undefined)] : bodyLines.map(rowOf);
    },
  };
}

/** The export records of the service's orders. */
export const ORDER_EXPORT = orderExport(ORDER_FIELDS);
