import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { type Caller, isAdmin } from '../auth/caller';
import { BatchOutcome, failed, succeeded } from '../batch/batch-outcome';
import { AppException } from '../problem/app-exception';
import { ProductStockService } from '../products/product-stock.service';
import { ActionParams, ExpectedVersions, Order, quantitiesByProduct } from './domain/order';
import {
  assertValidStateMachine,
  effectsOf,
  failedGuard,
  GUARDS,
  ORDER_TRANSITIONS,
  OrderAction,
  Transition,
  TransitionEffect,
  transitionChanges,
} from './domain/order-state-machine';
import { OrderChanges } from './order-changes.service';

type EffectHandler = (db: EntityManager, order: Order) => Promise<void>;

/**
 * Runs the actions of the state table (domain/order-state-machine.ts): permission, then in one
 * transaction the state, the guards, the effects of the state left, and the new status with its time
 * stamp and the request fields the table names. Effects are handled here, one handler per effect.
 */
@Injectable()
export class OrderActionsService implements OnModuleInit {
  private readonly effects: Record<TransitionEffect, EffectHandler> = {
    RESERVE_STOCK: (db, order) => this.stock.reserve(db, quantitiesByProduct(order.items)),
    RELEASE_STOCK: (db, order) => this.stock.release(db, quantitiesByProduct(order.items)),
  };

  constructor(
    private readonly dataSource: DataSource,
    private readonly changes: OrderChanges,
    private readonly stock: ProductStockService,
  ) {}

  onModuleInit(): void {
    assertValidStateMachine();
  }

  act(
    caller: Caller,
    orderId: string,
    action: OrderAction,
    params: ActionParams = {},
    expected?: ExpectedVersions,
  ): Promise<Order> {
    const transition = ORDER_TRANSITIONS[action];
    assertPermitted(transition, caller);
    return this.changes.run(caller, orderId, action, expected, async (db, order) => {
      for (const effect of effectsToRun(transition, order)) await this.effects[effect](db, order);
      return { fields: transitionChanges(transition, params), stamp: transition.stamp };
    });
  }

  /**
   * `act(caller, orderId, 'confirm')` for each of `orderIds`, with the outcome each would have if run one
   * after the other in request order, but set-based in one transaction (the batch confirm): the orders
   * locked in one statement, then each item judged by the same checks and guards as `act`; the stock of the
   * orders' products is locked in one statement and granted in request order (an order short of stock is
   * INSUFFICIENT_STOCK and takes nothing; a later one may still succeed), taken in one statement, and the
   * confirmed orders are saved in one statement. An order named twice is confirmed by its first item; the
   * repeat finds it CONFIRMED (INVALID_ORDER_STATE), as a second single confirm would.
   */
  confirmMany(caller: Caller, orderIds: readonly string[]): Promise<Array<BatchOutcome<string>>> {
    const transition = ORDER_TRANSITIONS.confirm;
    // Of the effects, only reserving stock has a set-based form (`reserveMany` below): a new effect of
    // confirm needs one here too.
    const effects = Object.values(transition.effects).flatMap((list) => list ?? []);
    if (effects.some((effect) => effect !== 'RESERVE_STOCK')) {
      throw new Error(`confirmMany cannot run the effects ${effects.join(', ')}`);
    }
    return this.dataSource.transaction(async (db) => {
      const orders = await this.changes.lockMany(db, orderIds);
      // The database spells ids in lower case; a client may not.
      const orderOf = (orderId: string) => orders.get(orderId.toLowerCase());
      // What `act` checks of the locked order before its effects; throws the item's error. Returns the effects.
      const judge = (orderId: string): { order: Order; effects: readonly TransitionEffect[] } => {
        assertPermitted(transition, caller);
        const order = this.changes.check(caller, orderId, orderOf(orderId), 'confirm', undefined);
        return { order, effects: effectsToRun(transition, order) };
      };
      // Every product an item may reserve: those of the orders that pass the checks as they stand now.
      const productIds = [...orders.keys()].flatMap((orderId) => {
        try {
          const { order, effects } = judge(orderId);
          return effects.includes('RESERVE_STOCK') ? order.items.map((item) => item.productId) : [];
        } catch {
          return [];
        }
      });
      const outcomes = await this.stock.reserveMany(db, productIds, (grant) =>
        orderIds.map((orderId, index): BatchOutcome<string> => {
          try {
            const { order, effects } = judge(orderId);
            if (effects.includes('RESERVE_STOCK') && !grant(quantitiesByProduct(order.items))) {
              throw new AppException('INSUFFICIENT_STOCK');
            }
            // What a later item naming the same order finds.
            order.status = transition.to;
            return succeeded(index, order.orderId);
          } catch (failure: unknown) {
            return failed(index, failure);
          }
        }),
      );
      const confirmed = outcomes.flatMap((outcome) => (outcome.ok ? [outcome.value] : []));
      await this.changes.saveMany(db, confirmed, {
        fields: transitionChanges(transition, {}),
        stamp: transition.stamp,
      });
      return outcomes;
    });
  }
}

/** An action only admins may run fails for anyone else with ACCESS_DENIED. */
function assertPermitted(transition: Transition, caller: Caller): void {
  if (transition.permission === 'ADMIN' && !isAdmin(caller)) throw new AppException('ACCESS_DENIED');
}

/**
 * The effects of running `transition` on the locked `order`, once its guards hold; the first failing
 * guard throws its error.
 */
function effectsToRun(transition: Transition, order: Order): readonly TransitionEffect[] {
  const failedName = failedGuard(transition, {
    itemCount: order.items.length,
    hasDeliveryAddress: order.deliveryAddress !== undefined,
  });
  if (failedName) throw new AppException(GUARDS[failedName].error);
  return effectsOf(transition, order.status);
}
