import { Injectable } from '@nestjs/common';
import { AppException } from '../../platform/problem/app-exception';
import { ProductStockService } from '../products/product-stock.service';
import type { PricedLine, RequestedLine } from './domain/order';
import { checkLines, LineCheck, productIdsOf, totalViolation } from './domain/order-lines';

/**
 * Prices requested lines from the catalogue (one read for all of them, through the products module) by
 * the rules of domain/order-lines.ts. Failures are violations on `<fieldOf(i)>productId|quantity`.
 */
@Injectable()
export class OrderLinePricingService {
  constructor(private readonly catalogue: ProductStockService) {}

  /** The priced lines, or 400 VALIDATION_ERROR naming every line that cannot be ordered. */
  async price(lines: readonly RequestedLine[], fieldOf: (index: number) => string): Promise<PricedLine[]> {
    const { priced, violations } = await this.check(lines, fieldOf, {});
    if (violations.length > 0) throw AppException.validation(violations);
    return priced;
  }

  /** 400 VALIDATION_ERROR (MAX on `items`) when lines would make a total the order cannot store. */
  assertStorableTotal(lines: ReadonlyArray<{ unitPrice: string; quantity: number }>): void {
    const violation = totalViolation(lines, 'items');
    if (violation) throw AppException.validation([violation]);
  }

  /**
   * Like price(), but returns the violations instead of throwing (batch operations report them per item).
   * `shareStock: false` checks every line against the whole stock, for lines of different orders.
   */
  async check(
    lines: readonly RequestedLine[],
    fieldOf: (index: number) => string,
    options: { shareStock?: boolean } = {},
  ): Promise<LineCheck> {
    const catalogue = await this.catalogue.snapshots(productIdsOf(lines));
    return checkLines(lines, catalogue, fieldOf, options);
  }
}
