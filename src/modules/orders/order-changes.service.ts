import { Injectable } from '@nestjs/common';
import type { Caller } from '../../platform/auth/caller';
import { operationEventType, type OrderEventType } from '../events/domain/event-types';
import { EventRecorder } from '../events/event-recorder.service';
import { AppException } from '../../platform/problem/app-exception';
import { ExpectedVersions, Order, OrderBody, OrderFieldChanges, satisfies } from './domain/order';
import { isAllowed, OrderOperation, OrderTimestampField } from './domain/order-state-machine';
import { assertOrderVisible } from './order-access';
import { OrderDeletionHooks } from './order-deletion-hooks';
import { OrdersRepository } from './persistence/orders.repository';
import { Transactions, type Tx } from '../../platform/database/transactions';

/** What a change writes besides its own statements: field changes and the time stamp of an action. */
export interface ChangeOutcome {
  fields?: OrderFieldChanges;
  stamp?: OrderTimestampField;
}

/**
 * The frame of every change of an order, in one transaction: read the order with its row locked (writers
 * of one order serialize), check that the caller may see it, that the client's `If-Match` names its
 * current version (else 409 CONCURRENT_MODIFICATION) and that its state allows the operation (else 409
 * INVALID_ORDER_STATE); then the change runs and the order is saved with its total recomputed, its
 * version bumped and `updatedAt` set. The change resolves to the order's v1 body as it now is, rendered by
 * the statement that saved it, before the transaction commits; the same statement records the operation's
 * event (events/domain/event-types.ts `operationEventType`) with that body as its data, so the event commits
 * with the change, and a refused change (which throws before the save) records none.
 */
@Injectable()
export class OrderChanges {
  constructor(
    private readonly transactions: Transactions,
    private readonly orders: OrdersRepository,
    private readonly deletionHooks: OrderDeletionHooks,
    private readonly events: EventRecorder,
  ) {}

  run(
    caller: Caller,
    orderId: string,
    operation: OrderOperation,
    expected: ExpectedVersions,
    apply: (tx: Tx, order: Order) => Promise<ChangeOutcome | void>,
  ): Promise<OrderBody> {
    return this.transactions.run(async (tx) => {
      const order = await this.lock(tx, caller, orderId, operation, expected);
      const outcome = (await apply(tx, order)) ?? {};
      const event = this.events.order(operationEventType(operation), caller.userId);
      return this.orders.save(tx, order.orderId, outcome.fields ?? {}, outcome.stamp, event);
    });
  }

  /**
   * Deletes the order if the operation `delete` is allowed on it, with what other modules keep for it
   * (OrderDeletionHooks), all in one transaction, recording ORDER_DELETED with the order as it was.
   */
  remove(caller: Caller, orderId: string, expected: ExpectedVersions): Promise<void> {
    return this.transactions.run(async (tx) => {
      const order = await this.lock(tx, caller, orderId, 'delete', expected);
      await this.deletionHooks.run(tx, order.orderId);
      await this.orders.delete(tx, order.orderId, this.events.order('ORDER_DELETED', caller.userId));
    });
  }

  /**
   * The orders of `orderIds` that exist, locked until the transaction ends (`readManyForUpdate`: one
   * statement, in id order), by id: for changes of many orders at once, each then judged with `check`.
   */
  async lockMany(tx: Tx, orderIds: readonly string[]): Promise<Map<string, Order>> {
    const orders = await this.orders.readManyForUpdate(tx, orderIds);
    return new Map(orders.map((order) => [order.orderId, order]));
  }

  /**
   * Saves the same outcome of a change of many orders by `caller` in one statement, with the effects of
   * `run`'s save: an event of `type` for each order.
   */
  async saveMany(
    tx: Tx,
    caller: Caller,
    orderIds: readonly string[],
    type: OrderEventType,
    outcome: ChangeOutcome,
  ): Promise<void> {
    const event = this.events.order(type, caller.userId);
    await this.orders.saveMany(tx, orderIds, outcome.fields ?? {}, outcome.stamp, event);
  }

  /**
   * The checks of every change once the order's row is locked (`order` undefined: there is none), each
   * failing with its error: found, visible to the caller, at a version `expected` accepts, in a state that
   * allows the operation. Returns the order.
   */
  check(
    caller: Caller,
    orderId: string,
    order: Order | undefined,
    operation: OrderOperation,
    expected: ExpectedVersions,
  ): Order {
    if (!order) throw new AppException('ORDER_NOT_FOUND', { args: { orderId } });
    assertOrderVisible(caller, order);
    if (!satisfies(expected, order.version)) throw new AppException('CONCURRENT_MODIFICATION');
    if (!isAllowed(operation, order.status)) {
      throw new AppException('INVALID_ORDER_STATE', { args: { status: order.status } });
    }
    return order;
  }

  private async lock(
    tx: Tx,
    caller: Caller,
    orderId: string,
    operation: OrderOperation,
    expected: ExpectedVersions,
  ): Promise<Order> {
    return this.check(caller, orderId, await this.orders.readForUpdate(tx, orderId), operation, expected);
  }
}
