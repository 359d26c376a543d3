import { Injectable } from '@nestjs/common';
import type { Caller } from '../../platform/auth/caller';
import { AppException } from '../../platform/problem/app-exception';
import { ExpectedVersions, Order, OrderBody, quantitiesByProduct, RequestedLine } from './domain/order';
import { MAX_ORDER_LINES } from './domain/order-fields';
import { OrderChanges } from './order-changes.service';
import { itemFieldPrefix } from '../../platform/batch/batch-outcome';
import { OrderLinePricingService } from './order-line-pricing.service';
import { OrdersRepository } from './persistence/orders.repository';

/**
 * Adding and removing lines of a CREATED order. Stock is checked for what the order would hold of each
 * product after the change (confirm reserves it). Each change resolves to the order's v1 body after it.
 */
@Injectable()
export class OrderItemsService {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly changes: OrderChanges,
    private readonly lines: OrderLinePricingService,
  ) {}

  async addItem(
    caller: Caller,
    orderId: string,
    line: RequestedLine,
    expected?: ExpectedVersions,
  ): Promise<{ order: OrderBody; item: { itemId: string; json: string } }> {
    let item = { itemId: '', json: '' };
    const order = await this.changes.run(caller, orderId, 'changeItems', expected, async (tx, current) => {
      checkRoom(current, 1);
      const productId = line.productId.toLowerCase();
      const held = quantitiesByProduct(current.items).find((q) => q.productId === productId)?.quantity ?? 0;
      const [checked] = await this.lines.price([{ productId, quantity: held + line.quantity }], () => '');
      const added = { ...checked, quantity: line.quantity };
      this.lines.assertStorableTotal([...current.items, added]);
      [item] = await this.orders.insertLines(tx, current.orderId, [added]);
    });
    return { order, item };
  }

  removeItem(
    caller: Caller,
    orderId: string,
    itemId: string,
    expected?: ExpectedVersions,
  ): Promise<OrderBody> {
    return this.changes.run(caller, orderId, 'changeItems', expected, async (tx, order) => {
      if (!(await this.orders.deleteLine(tx, order.orderId, itemId))) {
        throw new AppException('ITEM_NOT_FOUND', { args: { itemId } });
      }
    });
  }

  /**
   * Adds several lines, all or none, in one transaction (the atomic items batch): the catalogue is read
   * once and the lines are written with one statement. Any line failing its check fails the whole change:
   * 400 VALIDATION_ERROR with violations on `items[i].…`. Item ids in line order.
   */
  async addItems(
    caller: Caller,
    orderId: string,
    lines: readonly RequestedLine[],
    expected?: ExpectedVersions,
  ): Promise<{ order: OrderBody; itemIds: string[] }> {
    let itemIds: string[] = [];
    const order = await this.changes.run(caller, orderId, 'changeItems', expected, async (tx, current) => {
      checkRoom(current, lines.length);
      const held = new Map(quantitiesByProduct(current.items).map((q) => [q.productId, q.quantity]));
      // The first new line of a product also carries what the order holds of it; the pricer makes the
      // following lines of that product share what stock is left.
      const wanted = lines.map((line) => {
        const productId = line.productId.toLowerCase();
        const already = held.get(productId) ?? 0;
        held.delete(productId);
        return { productId, quantity: already + line.quantity };
      });
      const priced = await this.lines.price(wanted, itemFieldPrefix);
      const added = priced.map((line, i) => ({ ...line, quantity: lines[i].quantity }));
      this.lines.assertStorableTotal([...current.items, ...added]);
      itemIds = (await this.orders.insertLines(tx, current.orderId, added)).map((line) => line.itemId);
    });
    return { order, itemIds };
  }
}

/**
 * An order holds at most MAX_ORDER_LINES lines, however they were added (the create body's limit, kept
 * for the order's whole life): more is 400 VALIDATION_ERROR on `items`, as an order total beyond the money
 * column is.
 */
function checkRoom(order: Order, added: number): void {
  if (order.items.length + added > MAX_ORDER_LINES) {
    throw AppException.validation([{ field: 'items', code: 'MAX_ITEMS', args: { max: MAX_ORDER_LINES } }]);
  }
}
