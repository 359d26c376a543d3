import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Caller } from '../../auth/caller';
import {
  AtomicBatchFailure,
  BatchItemFailure,
  BatchOutcome,
  failed,
  itemFailuresOf,
  itemFieldPrefix,
  settleEach,
} from '../../batch/batch-outcome';
import { IndexedItem, settleInSavepoints } from '../../batch/batch-savepoints';
import { AppException } from '../../problem/app-exception';
import { OrderLinesPricer, PricedLine, RequestedLine } from '../order-lines';
import { OrderRecord } from '../order.view';
import { OrdersService, Precondition } from '../orders.service';

/**
 * The order batches (DECISIONS "Batch"). Partial success for creating and confirming many orders: each
 * item ends on its own, in request order. All or nothing for adding many lines to one order.
 */
@Injectable()
export class OrderBatchService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly orders: OrdersService,
    private readonly lines: OrderLinesPricer,
  ) {}

  /**
   * One single-line order of the caller per item. The catalogue is read once for the whole batch; each
   * item is checked against the whole stock, as separate `POST /orders` calls would be (stock is only
   * checked at create; confirm reserves it). The orders are written in one transaction, together when the database takes them all, else each
   * in its own savepoint (settleInSavepoints): an item that fails, even in the database, undoes nothing of
   * the others. Resolves to the order id of each item.
   */
  createOrders(caller: Caller, items: readonly RequestedLine[]): Promise<Array<BatchOutcome<string>>> {
    return this.dataSource.transaction(async (manager) => {
      const { priced, violations } = await this.lines.check(manager, [...items], itemFieldPrefix, {
        shareStock: false,
      });
      const refused = itemFailuresOf(violations, (i) => ({ productId: items[i].productId }));
      const written = await settleInSavepoints(
        manager,
        pricedItems(items.length, refused, priced),
        (savepoint, lines) => this.orders.insertSingleLineOrders(savepoint, caller, lines),
      );
      return [...refused.map(({ index, failure }) => failed<string>(index, failure)), ...written];
    });
  }

  /**
   * Confirms each order as `POST /orders/{orderId}/confirm` does, each in its own transaction: item errors
   * ORDER_NOT_FOUND, ACCESS_DENIED, ORDER_EMPTY, INVALID_ORDER_STATE, INSUFFICIENT_STOCK.
   */
  confirmOrders(
    caller: Caller,
    items: ReadonlyArray<{ orderId: string }>,
  ): Promise<Array<BatchOutcome<string>>> {
    return settleEach(items, async ({ orderId }) => {
      const { order } = await this.orders.act(caller, orderId, 'confirm');
      return order.orderId;
    });
  }

  /**
   * Adds all lines to the order or none (OrdersService.addItems). Lines failing their catalogue check fail
   * the batch with AtomicBatchFailure naming each of them; the order's own problems (not found, another
   * customer's, not CREATED, If-Match) fail the request as they do for a single line.
   */
  async addItems(
    caller: Caller,
    orderId: string,
    items: readonly RequestedLine[],
    precondition?: Precondition,
  ): Promise<{ record: OrderRecord; itemIds: string[] }> {
    try {
      return await this.orders.addItems(caller, orderId, [...items], precondition);
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
 * The lines OrderLinesPricer.check() priced, with their item index: it prices, in order, every line it
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
