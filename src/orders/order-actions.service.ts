import { Injectable, OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { type Caller, isAdmin } from '../auth/caller';
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
    if (transition.permission === 'ADMIN' && !isAdmin(caller)) throw new AppException('ACCESS_DENIED');
    return this.changes.run(caller, orderId, action, expected, async (db, order) => {
      const failed = failedGuard(transition, {
        itemCount: order.items.length,
        hasDeliveryAddress: order.deliveryAddress !== undefined,
      });
      if (failed) throw new AppException(GUARDS[failed].error);
      for (const effect of effectsOf(transition, order.status)) await this.effects[effect](db, order);
      return { fields: transitionChanges(transition, params), stamp: transition.stamp };
    });
  }
}
