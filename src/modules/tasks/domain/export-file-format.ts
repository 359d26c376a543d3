import { ORDER_EXPORT } from '../../orders/domain/order-export';
import { csvLine } from './csv';
import type { ExportFormat } from './task';

/**
 * The file formats of a customer export. Their records come from the orders module's declaration of an
 * order's fields (orders/domain/order-export.ts): JSON is an array of orders exactly as
 * `GET /api/v1/orders/{orderId}` serves them; CSV has one row per item, repeating the order's fields, and one
 * row with empty item columns for an order without items, each cell the value v1 serves.
 */
export interface ExportFileFormat {
  contentType: string;
  extension: string;
  header: string;
  /** The text of one order, from its v1 body's JSON text; `first` tells whether it starts the records. */
  order(body: string, first: boolean): string;
  footer: string;
}

export const EXPORT_FILE_FORMATS: Record<ExportFormat, ExportFileFormat> = {
  CSV: {
    contentType: 'text/csv; charset=utf-8',
    extension: 'csv',
    header: csvLine(ORDER_EXPORT.columns),
    order: (body) =>
      ORDER_EXPORT.rows(JSON.parse(body) as Record<string, unknown>)
        .map((row) => csvLine(row))
        .join(''),
    footer: '',
  },
  JSON: {
    contentType: 'application/json',
    extension: 'json',
    header: '[',
    order: (body, first) => `${first ? '\n' : ',\n'}${body}`,
    footer: '\n]\n',
  },
};
