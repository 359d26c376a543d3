import { Injectable } from '@nestjs/common';
import type { CreationKey } from '../orders/domain/order-aggregates';
import { OrderReportsService } from '../orders/order-reports.service';
import { ReportAccumulator } from './domain/report';
import { progressOf } from './domain/task';
import { TasksRepository } from './persistence/tasks.repository';
import { TaskHandler, TaskHandlers, TaskRun } from './task-handlers';

/** Orders per chunk: the database sums each chunk; Node merges the sums, never the orders. */
export const REPORT_CHUNK_ORDERS = 20_000;
/** Orders are priced in roubles (an order's currency is RUB). */
const REPORT_CURRENCY = 'RUB';

/**
 * REPORT_GENERATION: walks the orders created in the range in keyset chunks through the orders module,
 * each chunk aggregated by the database (per day and status, per product), merges the sums and stores
 * the report with the task's completion.
 */
@Injectable()
export class ReportGenerationProcessor implements TaskHandler<'REPORT_GENERATION'> {
  readonly type = 'REPORT_GENERATION';
  readonly concurrency = 1;

  constructor(
    private readonly orders: OrderReportsService,
    private readonly tasks: TasksRepository,
    handlers: TaskHandlers,
  ) {
    handlers.register(this);
  }

  async run({ task, progress, complete }: TaskRun<'REPORT_GENERATION'>): Promise<void> {
    const range = task.parameters;
    const total = await this.orders.countCreatedIn(range);
    const report = new ReportAccumulator(range);
    let after: CreationKey | undefined;
    let done = 0;
    for (;;) {
      const chunk = await this.orders.aggregateChunk(range, after, REPORT_CHUNK_ORDERS);
      report.add(chunk);
      done += chunk.orders;
      await progress(progressOf(done, total));
      if (chunk.orders < REPORT_CHUNK_ORDERS || !chunk.last) break;
      after = chunk.last;
    }
    const body = report.report(REPORT_CURRENCY);
    await complete(async (tx) => ({
      kind: 'report',
      id: await this.tasks.insertReport(tx, task.taskId, task.ownerId, body),
    }));
  }
}
