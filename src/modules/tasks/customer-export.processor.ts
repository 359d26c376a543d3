import { Injectable } from '@nestjs/common';
import type { CreationKey } from '../orders/domain/order-aggregates';
import { OrderExportsService } from '../orders/order-exports.service';
import { BlobStorage } from '../../platform/storage/blob-storage';
import { EXPORT_FILE_FORMATS } from './domain/export-file-format';
import { MAX_EXPORT_BYTES, progressOf } from './domain/task';
import { TasksRepository } from './persistence/tasks.repository';
import { TaskHandler, TaskHandlers, TaskRun } from './task-handlers';
import { Transactions } from '../../platform/database/transactions';

/** Orders per chunk read (with their items) while the file streams into storage. */
export const EXPORT_CHUNK_ORDERS = 500;

/**
 * CUSTOMER_EXPORT: streams the customer's orders, a keyset chunk at a time through the orders module,
 * as CSV or JSON straight into blob storage (never the whole file in memory), then stores the export with
 * the task's completion. A run that stops (cancelled, interrupted, failed) leaves no file behind.
 */
@Injectable()
export class CustomerExportProcessor implements TaskHandler<'CUSTOMER_EXPORT'> {
  readonly type = 'CUSTOMER_EXPORT';
  readonly concurrency = 2;

  constructor(
    private readonly orders: OrderExportsService,
    private readonly tasks: TasksRepository,
    private readonly storage: BlobStorage,
    private readonly transactions: Transactions,
    handlers: TaskHandlers,
  ) {
    handlers.register(this);
  }

  async run({ task, progress, complete }: TaskRun<'CUSTOMER_EXPORT'>): Promise<void> {
    const { customerId, format } = task.parameters;
    const file = EXPORT_FILE_FORMATS[format];
    const total = await this.orders.countCustomerOrders(customerId);
    const orders = this.orders;
    async function* content(): AsyncGenerator<Buffer> {
      yield Buffer.from(file.header);
      let after: CreationKey | undefined;
      let done = 0;
      for (;;) {
        const chunk = await orders.customerOrdersChunk(customerId, after, EXPORT_CHUNK_ORDERS);
        if (chunk.bodies.length > 0) {
          yield Buffer.from(chunk.bodies.map((body, i) => file.order(body, done + i === 0)).join(''));
        }
        done += chunk.bodies.length;
        await progress(progressOf(done, total));
        if (chunk.bodies.length < EXPORT_CHUNK_ORDERS || !chunk.last) break;
        after = chunk.last;
      }
      yield Buffer.from(file.footer);
    }
    const blob = await this.storage.write(content(), { maxBytes: MAX_EXPORT_BYTES });
    try {
      await complete(async (tx) => {
        await this.storage.attach(tx, blob.key);
        const exportId = await this.tasks.insertExport(tx, task.taskId, {
          ownerId: task.ownerId,
          customerId,
          format,
          fileName: `orders-${customerId}.${file.extension}`,
          contentType: file.contentType,
          blobKey: blob.key,
          size: blob.size,
          sha256: blob.sha256,
        });
        return { kind: 'export', id: exportId };
      });
    } catch (error: unknown) {
      await this.transactions.run((tx) => this.storage.delete(tx, [blob.key])).catch(() => undefined);
      throw error;
    }
  }
}
