import { Injectable } from '@nestjs/common';
import type { Caller } from '../../platform/auth/caller';
import {
  AtomicBatchFailure,
  BatchItemFailure,
  BatchOutcome,
  failed,
  itemFailuresOf,
  itemFieldPrefix,
} from '../../platform/batch/batch-outcome';
import { IndexedItem, settleInSavepoints } from '../../platform/batch/batch-savepoints';
import { DeliveryAddressesService } from '../delivery-addresses/delivery-addresses.service';
import { EventRecorder } from '../events/event-recorder.service';
import { AppException } from '../../platform/problem/app-exception';
import type { ExpectedVersions, OrderBody, PricedLine, RequestedLine } from './domain/order';
import { totalViolation } from './domain/order-lines';
import { OrderActionsService } from './order-actions.service';
import { OrderItemsService } from './order-items.service';
import { OrderLinePricingService } from './order-line-pricing.service';
import { OrdersRepository } from './persistence/orders.repository';
import { Transactions } from '../../platform/database/transactions';

/**
 * The order batches (docs/decisions/0026-batch-operations.md), built from the steps the single operations
 * use. Partial success for creating and confirming many orders: each item ends on its own, in request order.
 * All or nothing for adding many lines to one order.
 */
@Injectable()
export class OrderBatchService {
  constructor(
    private readonly transactions: Transactions,
    private readonly orders: OrdersRepository,
    private readonly actions: OrderActionsService,
    private readonly items: OrderItemsService,
    private readonly lines: OrderLinePricingService,
    private readonly addresses: DeliveryAddressesService,
    private readonly events: EventRecorder,
  ) {}

  /**
   * One single-line order of the caller per item. The catalogue is read once for the whole batch; each
   * item is checked against the whole stock, as separate `POST /orders` calls would be (stock is only
   * checked at create; confirm reserves it). The orders are written in one transaction, together when the
   * database takes them all, else each in its own savepoint (settleInSavepoints): an item that fails, even
   * in the database, undoes nothing of the others. Resolves to the order id of each item.
   */
  async createOrders(caller: Caller, items: readonly RequestedLine[]): Promise<Array<BatchOutcome<string>>> {
    // Like a single create without an address, each order takes a copy of the caller's default one (read
    // before the transaction: no second pool connection while one is held).
    const deliveryAddress = await this.addresses.defaultAddressOf(caller.userId);
    return this.transactions.run(async (tx) => {
      const { priced, violations } = await this.lines.check(items, itemFieldPrefix, { shareStock: false });
      // Each item is an order of its own: its one line's total must fit the money column.
      const pricedByItem = pricedItems(items.length, itemFailuresOf(violations), priced);
      const totals = pricedByItem.flatMap(({ index, item }) => {
        const violation = totalViolation([item], `${itemFieldPrefix(index)}quantity`);
        return violation ? [violation] : [];
      });
      const refused = itemFailuresOf([...violations, ...totals], (i) => ({ productId: items[i].productId }));
      const refusedIndexes = new Set(refused.map((r) => r.index));
      const written = await settleInSavepoints(
        tx,
        pricedByItem.filter(({ index }) => !refusedIndexes.has(index)),
        (savepoint, lines) =>
          this.orders.insertSingleLineOrders(
            savepoint,
            caller.userId,
            lines,
            { deliveryAddress },
            this.events.order('ORDER_CREATED', caller.userId),
          ),
      );
      return [...refused.map(({ index, failure }) => failed<string>(index, failure)), ...written];
    });
  }

  /**
   * Confirms each order as `POST /orders/{orderId}/confirm` does, with the same outcome per item, in
   * request order, set-based in one transaction (OrderActionsService.confirmMany): item errors
   * ORDER_NOT_FOUND, ACCESS_DENIED, ORDER_EMPTY, INVALID_ORDER_STATE, INSUFFICIENT_STOCK.
   */
  async confirmOrders(
    caller: Caller,
    items: ReadonlyArray<{ orderId: string }>,
  ): Promise<Array<BatchOutcome<string>>> {
    const orderIds = items.map((item) => item.orderId);
    try {
      return await this.actions.confirmMany(caller, orderIds);
    } catch (failure: unknown) {
      // The one transaction failed (an outage, a bug) and nothing was confirmed: every item failed with it,
      // as each did when every item had a transaction of its own (still 200, one result per item).
      return orderIds.map((_, index) => failed<string>(index, failure));
    }
  }

  /**
   * Adds all lines to the order or none (OrderItemsService.addItems). Lines failing their catalogue check
   * fail the batch with AtomicBatchFailure naming each of them; the order's own problems (not found,
   * another customer's, not CREATED, If-Match) fail the request as they do for a single line.
   */
  async addItems(
    caller: Caller,
    orderId: string,
    items: readonly RequestedLine[],
    expected?: ExpectedVersions,
  ): Promise<{ order: OrderBody; itemIds: string[] }> {
    try {
      return await this.items.addItems(caller, orderId, items, expected);
    } catch (error: unknown) {
      if (error instanceof AppException && error.code === 'VALIDATION_ERROR') {
        const failures = itemFailuresOf(error.options.violations ?? [], (i) => ({
          productId: items[i].productId,
        }));
        if (failures.length > 0) throw new AtomicBatchFailure(failures);
      }
      throw error;
    }
  }
}

/**
 * The lines OrderLinePricingService.check() priced, with their item index: it prices, in order, every line it
 * reports no violation for, so `priced[k]` belongs to the k-th item that was not refused.
 */
function pricedItems(
  count: number,
  refused: readonly BatchItemFailure[],
  priced: readonly PricedLine[],
): Array<IndexedItem<PricedLine>> {
  const refusedIndexes = new Set(refused.map((failure) => failure.index));
  const items: Array<IndexedItem<PricedLine>> = [];
  for (let index = 0; index < count; index += 1) {
    if (!refusedIndexes.has(index)) items.push({ index, item: priced[items.length] });
  }
  return items;
}
