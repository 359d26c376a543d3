import { formatTimestamp, toJsonOutput } from '../http/json-output';
import type { Order } from '../orders/domain/order';
import { csvLine } from './domain/csv';
import type { ExportFormat } from './domain/task';

/**
 * The file formats of a customer export (DECISIONS "Long-running tasks"): every field of the Order
 * response — status timestamps, delivery address and note included — and each item's product id, name,
 * quantity and unit price. JSON is an array of orders exactly as `GET /api/v1/orders/{orderId}` serves them
 * (omitted empty fields, `YYYY-MM-DDThh:mm:ssZ`); CSV has one row per item, repeating the order's fields,
 * and one row with empty item columns for an order without items.
 */
export interface ExportFileFormat {
  contentType: string;
  extension: string;
  header: string;
  /** The text of one order; `first` tells whether it starts the file's records. */
  order(order: Order, first: boolean): string;
  footer: string;
}

/** The order as the v1 API serves it (the export promises the same fields and formats). */
export function exportRecord(order: Order): unknown {
  return toJsonOutput({
    orderId: order.orderId,
    customerId: order.customerId,
    status: order.status,
    totalAmount: Number(order.totalAmount),
    currency: order.currency,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
    confirmedAt: order.confirmedAt,
    shippedAt: order.shippedAt,
    deliveredAt: order.deliveredAt,
    cancelledAt: order.cancelledAt,
    refundedAt: order.refundedAt,
    deliveryAddress: order.deliveryAddress,
    items: order.items.map((i) => ({
      itemId: i.itemId,
      productId: i.productId,
      productName: i.productName,
      quantity: i.quantity,
      unitPrice: Number(i.unitPrice),
    })),
    note: order.note,
    trackingNumber: order.trackingNumber,
    carrier: order.carrier,
    cancellationReason: order.cancellationReason,
    refundReason: order.refundReason,
  });
}

export const CSV_COLUMNS = [
  'orderId',
  'customerId',
  'status',
  'totalAmount',
  'currency',
  'createdAt',
  'updatedAt',
  'confirmedAt',
  'shippedAt',
  'deliveredAt',
  'cancelledAt',
  'refundedAt',
  'deliveryStreetName',
  'deliveryZipCode',
  'note',
  'trackingNumber',
  'carrier',
  'cancellationReason',
  'refundReason',
  'itemId',
  'productId',
  'productName',
  'quantity',
  'unitPrice',
] as const;

const time = (date: Date | undefined) => (date ? formatTimestamp(date) : undefined);

function csvRows(order: Order): string {
  const orderCells = [
    order.orderId,
    order.customerId,
    order.status,
    Number(order.totalAmount),
    order.currency,
    time(order.createdAt),
    time(order.updatedAt),
    time(order.confirmedAt),
    time(order.shippedAt),
    time(order.deliveredAt),
    time(order.cancelledAt),
    time(order.refundedAt),
    order.deliveryAddress?.streetName,
    order.deliveryAddress?.zipCode,
    order.note,
    order.trackingNumber,
    order.carrier,
    order.cancellationReason,
    order.refundReason,
  ];
  if (order.items.length === 0)
    return csvLine([...orderCells, undefined, undefined, undefined, undefined, undefined]);
  return order.items
    .map((i) =>
      csvLine([...orderCells, i.itemId, i.productId, i.productName, i.quantity, Number(i.unitPrice)]),
    )
    .join('');
}

export const EXPORT_FORMATS: Record<ExportFormat, ExportFileFormat> = {
  CSV: {
    contentType: 'text/csv; charset=utf-8',
    extension: 'csv',
    header: csvLine([...CSV_COLUMNS]),
    order: (order) => csvRows(order),
    footer: '',
  },
  JSON: {
    contentType: 'application/json',
    extension: 'json',
    header: '[',
    order: (order, first) => `${first ? '\n' : ',\n'}${JSON.stringify(exportRecord(order))}`,
    footer: '\n]\n',
  },
};
