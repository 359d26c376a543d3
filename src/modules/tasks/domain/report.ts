import type { OrderAggregateChunk } from '../../orders/domain/order-aggregates';
import type { OrderStatus } from '../../orders/domain/order-status';
import { daysInRange, ReportParameters } from './task';

/** Money in the report: a number with at most 2 decimals, as the API serves money. */
type Money = number;

export interface ProductFigure {
  productId: string;
  productName: string;
  quantity: number;
  amount: Money;
}

/** The body of a generated report (`GET /reports/{reportId}`). */
export interface ReportBody {
  dateFrom: string;
  dateTo: string;
  currency: string;
  orderCount: number;
  totalAmount: Money;
  byStatus: Array<{ status: OrderStatus; orderCount: number; totalAmount: Money }>;
  topProductsByQuantity: ProductFigure[];
  topProductsByAmount: ProductFigure[];
  /** Every day of the range, days without orders included. */
  daily: Array<{ date: string; orderCount: number; totalAmount: Money }>;
}

export const TOP_PRODUCTS = 10;

/** Decimal text (`"123.45"`, `"7"`, `"-0.5"`) to integer cents, exactly. */
export function toCents(amount: string): bigint {
  const match = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(amount);
  if (!match) throw new Error(`not a money amount: ${amount}`);
  const cents = BigInt(match[2]) * 100n + BigInt((match[3] ?? '').padEnd(2, '0'));
  return match[1] ? -cents : cents;
}

function toMoney(cents: bigint): Money {
  return Number(cents) / 100;
}

interface Tally {
  orders: number;
  cents: bigint;
}

/**
 * Merges the per-chunk sums of a report's orders (read a keyset chunk at a time, never all at once) into
 * the report. Exact: amounts are summed in integer cents.
 */
export class ReportAccumulator {
  private readonly byDay = new Map<string, Tally>();
  private readonly byStatus = new Map<OrderStatus, Tally>();
  private readonly products = new Map<string, { productName: string; quantity: number; cents: bigint }>();

  constructor(private readonly parameters: ReportParameters) {}

  add(chunk: OrderAggregateChunk): void {
    for (const { day, status, orders, amount } of chunk.days) {
      const cents = toCents(amount);
      add(this.byDay, day, orders, cents);
      add(this.byStatus, status, orders, cents);
    }
    for (const product of chunk.products) {
      const seen = this.products.get(product.productId);
      const cents = toCents(product.amount);
      if (seen) {
        seen.quantity += product.quantity;
        seen.cents += cents;
      } else {
        this.products.set(product.productId, {
          productName: product.productName,
          quantity: product.quantity,
          cents,
        });
      }
    }
  }

  report(currency: string): ReportBody {
    const { dateFrom, dateTo } = this.parameters;
    let orderCount = 0;
    let total = 0n;
    for (const tally of this.byStatus.values()) {
      orderCount += tally.orders;
      total += tally.cents;
    }
    const products = [...this.products.entries()].map(([productId, p]) => ({ productId, ...p }));
    const figure = (p: (typeof products)[number]): ProductFigure => ({
      productId: p.productId,
      productName: p.productName,
      quantity: p.quantity,
      amount: toMoney(p.cents),
    });
    // Ties break on the product id, so the same data always gives the same report.
    const byId = (a: { productId: string }, b: { productId: string }) => (a.productId < b.productId ? -1 : 1);
    return {
      dateFrom,
      dateTo,
      currency,
      orderCount,
      totalAmount: toMoney(total),
      byStatus: [...this.byStatus.entries()]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([status, t]) => ({ status, orderCount: t.orders, totalAmount: toMoney(t.cents) })),
      topProductsByQuantity: [...products]
        .sort((a, b) => b.quantity - a.quantity || byId(a, b))
        .slice(0, TOP_PRODUCTS)
        .map(figure),
      topProductsByAmount: [...products]
        .sort((a, b) => (b.cents > a.cents ? 1 : b.cents < a.cents ? -1 : byId(a, b)))
        .slice(0, TOP_PRODUCTS)
        .map(figure),
      daily: everyDay(dateFrom, dateTo).map((date) => {
        const tally = this.byDay.get(date);
        return { date, orderCount: tally?.orders ?? 0, totalAmount: toMoney(tally?.cents ?? 0n) };
      }),
    };
  }
}

function add<K>(map: Map<K, Tally>, key: K, orders: number, cents: bigint): void {
  const tally = map.get(key);
  if (tally) {
    tally.orders += orders;
    tally.cents += cents;
  } else {
    map.set(key, { orders, cents });
  }
}

function everyDay(dateFrom: string, dateTo: string): string[] {
  const start = Date.parse(`${dateFrom}T00:00:00Z`);
  return Array.from({ length: daysInRange(dateFrom, dateTo) }, (_, i) =>
    new Date(start + i * 86_400_000).toISOString().slice(0, 10),
  );
}
