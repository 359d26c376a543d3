import type { PricedLine, RequestedLine } from './order';

/** What ordering needs to know of a catalogue product. */
export interface CatalogueEntry {
  productId: string;
  name: string;
  /** Decimal text, as stored. */
  price: string;
  stock: number;
  status: 'ACTIVE' | 'DISCONTINUED';
}

/** Why a line cannot be ordered: a violation of one of its fields. */
export interface LineViolation {
  field: string;
  code: 'PRODUCT_NOT_FOUND' | 'PRODUCT_DISCONTINUED' | 'PRODUCT_OUT_OF_STOCK' | 'INSUFFICIENT_STOCK' | 'MAX';
  args?: Record<string, number | string>;
}

/** The largest order total the money column holds: numeric(12,2). */
export const MAX_ORDER_TOTAL = '9999999999.99';
const MAX_ORDER_TOTAL_CENTS = 999_999_999_999n;

/** Decimal text with at most 2 decimals (prices as stored) in integer cents, exactly. */
function cents(amount: string): bigint {
  const [units, fraction = ''] = amount.split('.');
  return BigInt(units) * 100n + BigInt(fraction.padEnd(2, '0').slice(0, 2));
}

/** Sum of unit price × quantity of lines, in cents. */
export function totalCents(lines: ReadonlyArray<{ unitPrice: string; quantity: number }>): bigint {
  return lines.reduce((sum, line) => sum + cents(line.unitPrice) * BigInt(line.quantity), 0n);
}

/**
 * A total the order could not store (beyond the money column: 400 with a MAX
 * violation), on `field`: the order's `items`, or one batch item's `items[i].quantity`.
 */
export function totalViolation(
  lines: ReadonlyArray<{ unitPrice: string; quantity: number }>,
  field: string,
): LineViolation | undefined {
  return totalCents(lines) > MAX_ORDER_TOTAL_CENTS
    ? { field, code: 'MAX', args: { max: MAX_ORDER_TOTAL } }
    : undefined;
}

export interface LineCheck {
  /** The lines that passed, in request order, name and price frozen. */
  priced: PricedLine[];
  violations: LineViolation[];
}

/**
 * Checks requested lines against the catalogue and freezes name and price. Failures are violations on
 * `<fieldOf(i)>productId` / `<fieldOf(i)>quantity`. Several lines of one order share a product's stock
 * (`shareStock`); lines of different orders (the order batch) are each checked against the whole stock.
 * Stock is only checked here; confirm reserves it.
 */
export function checkLines(
  lines: readonly RequestedLine[],
  catalogue: ReadonlyMap<string, CatalogueEntry>,
  fieldOf: (index: number) => string,
  { shareStock = true }: { shareStock?: boolean } = {},
): LineCheck {
  const remaining = new Map([...catalogue.values()].map((p) => [p.productId, p.stock]));
  const violations: LineViolation[] = [];
  const priced: PricedLine[] = [];
  lines.forEach((line, index) => {
    const productId = line.productId.toLowerCase();
    const product = catalogue.get(productId);
    const field = fieldOf(index);
    if (!product) {
      violations.push({ field: `${field}productId`, code: 'PRODUCT_NOT_FOUND' });
    } else if (product.status === 'DISCONTINUED') {
      violations.push({ field: `${field}productId`, code: 'PRODUCT_DISCONTINUED' });
    } else if (product.stock === 0) {
      violations.push({ field: `${field}productId`, code: 'PRODUCT_OUT_OF_STOCK' });
    } else {
      const available = remaining.get(productId) ?? 0;
      if (line.quantity > available) {
        violations.push({ field: `${field}quantity`, code: 'INSUFFICIENT_STOCK', args: { available } });
      } else {
        if (shareStock) remaining.set(productId, available - line.quantity);
        priced.push({
          productId,
          quantity: line.quantity,
          productName: product.name,
          unitPrice: product.price,
        });
      }
    }
  });
  return { priced, violations };
}

/** The product ids lines name, lower case, each once. */
export function productIdsOf(lines: readonly RequestedLine[]): string[] {
  return [...new Set(lines.map((l) => l.productId.toLowerCase()))];
}
