import { Injectable } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';
import { AppException, ViolationInput } from '../problem/app-exception';
import { ProductEntity } from '../products/product.entity';

export interface RequestedLine {
  productId: string;
  quantity: number;
}

export interface PricedLine extends RequestedLine {
  productName: string;
  unitPrice: string;
}

/**
 * Checks requested lines against the catalogue (one query for all of them) and freezes name and price.
 * Failures are violations on `<prefix>[i].productId` / `<prefix>[i].quantity` (DECISIONS "Orders").
 * Stock is only checked here; it is reserved at confirm.
 */
@Injectable()
export class OrderLinesPricer {
  async price(
    manager: EntityManager,
    lines: RequestedLine[],
    fieldOf: (index: number) => string,
  ): Promise<PricedLine[]> {
    const { priced, violations } = await this.check(manager, lines, fieldOf);
    if (violations.length > 0) throw AppException.validation(violations);
    return priced;
  }

  /**
   * Like price(), but returns the violations instead of throwing (batch operations report them per item).
   * `shareStock: false` checks every line against the whole stock, for lines of different orders.
   */
  async check(
    manager: EntityManager,
    lines: RequestedLine[],
    fieldOf: (index: number) => string,
    { shareStock = true }: { shareStock?: boolean } = {},
  ): Promise<{ priced: PricedLine[]; violations: ViolationInput[] }> {
    const ids = [...new Set(lines.map((l) => l.productId.toLowerCase()))];
    const products =
      ids.length === 0 ? [] : await manager.find(ProductEntity, { where: { productId: In(ids) } });
    const byId = new Map(products.map((p) => [p.productId, p]));
    const remaining = new Map(products.map((p) => [p.productId, p.stock]));
    const violations: ViolationInput[] = [];
    const priced: PricedLine[] = [];

    lines.forEach((line, index) => {
      const productId = line.productId.toLowerCase();
      const product = byId.get(productId);
      const field = fieldOf(index);
      if (!product) {
        violations.push({ field: `${field}productId`, code: 'PRODUCT_NOT_FOUND' });
      } else if (product.status === 'DISCONTINUED') {
        violations.push({ field: `${field}productId`, code: 'PRODUCT_DISCONTINUED' });
      } else if (product.stock === 0) {
        violations.push({ field: `${field}productId`, code: 'PRODUCT_OUT_OF_STOCK' });
      } else {
        // Several lines of one order share its stock.
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
}
