import { Injectable } from '@nestjs/common';
import type { CreationKey, CreationRange, OrderAggregateChunk } from './domain/order-aggregates';
import { OrderReportsRepository } from './persistence/order-reports.repository';

/** What reports read of orders: sums over the orders created in a range, a chunk at a time. */
@Injectable()
export class OrderReportsService {
  constructor(private readonly reports: OrderReportsRepository) {}

  /** Sums over the next chunk of orders created in `range` (reports aggregate a chunk at a time). */
  aggregateChunk(
    range: CreationRange,
    after: CreationKey | undefined,
    limit: number,
  ): Promise<OrderAggregateChunk> {
    return this.reports.aggregateChunk(range, after, limit);
  }

  countCreatedIn(range: CreationRange): Promise<number> {
    return this.reports.countCreatedIn(range);
  }
}
