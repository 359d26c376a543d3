import { Injectable } from '@nestjs/common';
import type { CreationKey } from './domain/order-aggregates';
import { OrderExportsRepository } from './persistence/order-exports.repository';

/**
 * What customer exports read of orders: a customer's orders in creation order, a chunk at a time, each as
 * v1 serves it (JSON text), which is what an export's records are made of (domain/order-export.ts).
 */
@Injectable()
export class OrderExportsService {
  constructor(private readonly exports: OrderExportsRepository) {}

  /**
   * A customer's orders in creation order, a chunk at a time (exports walk them without holding them all):
   * pass the returned `last` back as `after` until a chunk comes back shorter than `limit`.
   */
  customerOrdersChunk(
    customerId: string,
    after: CreationKey | undefined,
    limit: number,
  ): Promise<{ bodies: string[]; last?: CreationKey }> {
    return this.exports.readCustomerChunk(customerId, after, limit);
  }

  countCustomerOrders(customerId: string): Promise<number> {
    return this.exports.countCustomerOrders(customerId);
  }
}
