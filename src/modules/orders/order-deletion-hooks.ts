import { Injectable } from '@nestjs/common';
import type { Tx } from '../../platform/database/transactions';

/** Removes what another module keeps for an order, in the transaction that deletes the order. */
export type OrderDeletionHook = (tx: Tx, orderId: string) => Promise<void>;

/**
 * What other modules delete with an order. Modules that keep data belonging to an order (files keeps its
 * attachments and their bytes) depend on orders, so orders cannot call them; instead they register a hook
 * here (in `onModuleInit`), and deleting an order runs every hook inside its transaction, after the order is
 * locked and before its row goes. A hook that fails rolls the whole deletion back.
 */
@Injectable()
export class OrderDeletionHooks {
  private readonly hooks: OrderDeletionHook[] = [];

  register(hook: OrderDeletionHook): void {
    this.hooks.push(hook);
  }

  async run(tx: Tx, orderId: string): Promise<void> {
    for (const hook of this.hooks) await hook(tx, orderId);
  }
}
