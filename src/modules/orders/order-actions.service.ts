import { Injectable, OnModuleInit } from '@nestjs/common';
import { type Caller, isAdmin } from '../../platform/auth/caller';
import { BatchOutcome, failed, succeeded } from '../../platform/batch/batch-outcome';
import { actionEventType } from '../events/domain/event-types';
import { AppException } from '../../platform/problem/app-exception';
import { ProductStockService } from '../products/product-stock.service';
import { ExpectedVersions, Order, OrderBody, quantitiesByProduct } from './domain/order';
import {
  ActionParams,
  assertValidStateMachine,
  ORDER_TRANSITIONS,
  OrderAction,
  planTransition,
  TransitionEffect,
  TransitionPlan,
} from './domain/order-state-machine';
import { OrderChanges } from './order-changes.service';
import { Transactions, type Tx } from '../../platform/database/transactions';

type EffectHandler = (tx: Tx, order: Order) => Promise<void>;

/**
 * Runs the actions of the state table (domain/order-state-machine.ts) in the frame of every change
 * (OrderChanges: the order locked, found, visible, at the expected version, in a state the action
 * leaves): what an action does is the table's `planTransition` (permission, guards, the effects of the state
 * left, the new status with its time stamp and the request fields it keeps), the same for one order (`act`)
 * and for the batch confirm (`confirmMany`). Effects are handled here, one handler per effect; the batch
 * runs them in their set-based form.
 */
@Injectable()
export class OrderActionsService implements OnModuleInit {
  private readonly effects: Record<TransitionEffect, EffectHandler> = {
    RESERVE_STOCK: (tx, order) => this.stock.reserve(tx, quantitiesByProduct(order.items)),
    RELEASE_STOCK: (tx, order) => this.stock.release(tx, quantitiesByProduct(order.items)),
  };

  constructor(
    private readonly transactions: Transactions,
    private readonly changes: OrderChanges,
    private readonly stock: ProductStockService,
  ) {}

  onModuleInit(): void {
    assertValidStateMachine();
  }

  /** Runs `action` on one order; resolves to its v1 body after the change. */
  act(
    caller: Caller,
    orderId: string,
    action: OrderAction,
    params: ActionParams = {},
    expected?: ExpectedVersions,
  ): Promise<OrderBody> {
    return this.changes.run(caller, orderId, action, expected, async (tx, order) => {
      const plan = planned(action, caller, order, params);
      for (const effect of plan.effects) await this.effects[effect](tx, order);
      return { fields: plan.fields, stamp: plan.stamp };
    });
  }

  /**
   * `act(caller, orderId, 'confirm')` for each of `orderIds`, with the outcome each would have if run one
   * after the other in request order, but set-based in one transaction (the batch confirm): the orders
   * locked in one statement, then each item judged by the same checks and the same plan as `act`; the
   * stock of the orders' products is locked in one statement and granted in request order (an order short
   * of stock is INSUFFICIENT_STOCK and takes nothing; a later one may still succeed), taken in one
   * statement, and the confirmed orders are saved in one statement. An order named twice is confirmed by
   * its first item; the repeat finds it CONFIRMED (INVALID_ORDER_STATE), as a second single confirm would.
   */
  confirmMany(caller: Caller, orderIds: readonly string[]): Promise<Array<BatchOutcome<string>>> {
    // Of the effects, only reserving stock has a set-based form (the grant below): a new effect of
    // confirm needs one here too.
    const effects = Object.values(ORDER_TRANSITIONS.confirm.effects).flat();
    if (effects.some((effect) => effect !== 'RESERVE_STOCK')) {
      throw new Error(`confirmMany cannot run the effects ${effects.join(', ')}`);
    }
    return this.transactions.run(async (tx) => {
      const orders = await this.changes.lockMany(tx, orderIds);
      // The database spells ids in lower case; a client may not.
      const orderOf = (orderId: string) => orders.get(orderId.toLowerCase());
      // What `act` decides for the locked order before running its effects; throws the item's error.
      const judge = (orderId: string): { order: Order; plan: TransitionPlan } => {
        const order = this.changes.check(caller, orderId, orderOf(orderId), 'confirm', undefined);
        return { order, plan: planned('confirm', caller, order, {}) };
      };
      // Every product an item may reserve: those of the orders that pass the checks as they stand now.
      const productIds = [...orders.keys()].flatMap((orderId) => {
        try {
          const { order, plan } = judge(orderId);
          return plan.effects.includes('RESERVE_STOCK') ? order.items.map((item) => item.productId) : [];
        } catch {
          return [];
        }
      });
      let saved: Pick<TransitionPlan, 'fields' | 'stamp'> | undefined;
      const outcomes = await this.stock.reserveMany(tx, productIds, (grant) =>
        orderIds.map((orderId, index): BatchOutcome<string> => {
          try {
            const { order, plan } = judge(orderId);
            if (plan.effects.includes('RESERVE_STOCK') && !grant(quantitiesByProduct(order.items))) {
              throw new AppException('INSUFFICIENT_STOCK');
            }
            // What a later item naming the same order finds.
            order.status = plan.fields.status;
            saved = plan;
            return succeeded(index, order.orderId);
          } catch (failure: unknown) {
            return failed(index, failure);
          }
        }),
      );
      const confirmed = outcomes.flatMap((outcome) => (outcome.ok ? [outcome.value] : []));
      // A confirm's changes depend on nothing of the order: one plan's are every confirmed order's.
      if (saved) {
        await this.changes.saveMany(tx, caller, confirmed, actionEventType('confirm'), {
          fields: saved.fields,
          stamp: saved.stamp,
        });
      }
      return outcomes;
    });
  }
}

/** The table's plan of `action` for `caller` on the locked `order`; throws the error that refuses it. */
function planned(action: OrderAction, caller: Caller, order: Order, params: ActionParams): TransitionPlan {
  const plan = planTransition(
    ORDER_TRANSITIONS[action],
    { admin: isAdmin(caller) },
    {
      status: order.status,
      facts: { itemCount: order.items.length, hasDeliveryAddress: order.deliveryAddress !== undefined },
    },
    params,
  );
  if ('refusedWith' in plan) throw new AppException(plan.refusedWith);
  return plan;
}
