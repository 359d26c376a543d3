import { EntitySchema, EntitySchemaColumnOptions } from 'typeorm';
import { FieldDeclaration, fieldsOf, ORDER_FIELDS, ScalarField } from '../domain/order-fields';

/**
 * The tables of orders and their lines as TypeORM knows them (for `npm run migration:generate`; every
 * statement is the repositories' own SQL), derived from the declaration of the order's fields: a field's
 * kind gives its column type, `optional` its nullability. What the tables add to the declaration is
 * written here: keys, defaults, and the columns no form of an order shows.
 */

/** The column a scalar field is stored in. */
function columnOf(field: ScalarField, nullable: boolean): EntitySchemaColumnOptions {
  const base = { name: field.column, nullable };
  switch (field.kind) {
    case 'uuid':
      return { ...base, type: 'uuid' };
    case 'currency':
      return { ...base, type: 'char', length: 3 };
    case 'money':
      return { ...base, type: 'numeric', precision: 12, scale: 2 };
    case 'integer':
      return { ...base, type: 'integer' };
    case 'timestamp':
      return { ...base, type: 'timestamptz' };
    case 'status':
    case 'text':
      return { ...base, type: 'text' };
  }
}

/** The columns of `fields` by property name, an object's members flattened under their export names. */
function columnsOf(
  fields: Readonly<Record<string, FieldDeclaration>>,
): Record<string, EntitySchemaColumnOptions> {
  const columns: Record<string, EntitySchemaColumnOptions> = {};
  for (const [name, field] of fieldsOf(fields)) {
    if (field.kind === 'object') {
      for (const [member, declaration] of fieldsOf(field.members)) {
        columns[declaration.exportColumn ?? `${name}_${member}`] = columnOf(declaration, true);
      }
    } else if (field.kind !== 'lines') {
      columns[name] = columnOf(field, field.optional ?? false);
    }
  }
  return columns;
}

const orderColumns = columnsOf(ORDER_FIELDS);

export const OrderEntity = new EntitySchema({
  name: 'OrderEntity',
  tableName: 'orders',
  columns: {
    ...orderColumns,
    orderId: { ...orderColumns.orderId, primary: true, generated: 'uuid' },
    status: { ...orderColumns.status, default: 'CREATED' },
    currency: { ...orderColumns.currency, default: 'RUB' },
    totalAmount: { ...orderColumns.totalAmount, default: 0 },
    createdAt: { ...orderColumns.createdAt, createDate: true },
    version: { ...orderColumns.version, default: 1 },
    /**
     * No longer written or read: a create's Idempotency-Key outcome now commits with the order (the request
     * unit of work). Kept while pods of the release that wrote it may still run during a rolling update;
     * a later migration drops it (docs/decisions/0100-exactly-once-request-unit-of-work.md).
     */
    creationReference: { name: 'creation_reference', type: 'text', nullable: true },
  },
});

const lines = ORDER_FIELDS.items;
const lineColumns = columnsOf(lines.members);

export const OrderItemEntity = new EntitySchema({
  name: 'OrderItemEntity',
  tableName: lines.table,
  columns: {
    ...lineColumns,
    itemId: { ...lineColumns.itemId, primary: true, generated: 'uuid' },
    orderId: { name: lines.orderKey, type: 'uuid' },
    /** The lines' order: each row's clock time. */
    createdAt: { name: 'created_at', type: 'timestamptz', default: () => 'clock_timestamp()' },
  },
});
