import { Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { JobQueue } from '../queue/job-queue';
import { IdempotencyStore } from './idempotency.store';

export const IDEMPOTENCY_MAINTENANCE_QUEUE = 'idempotency-maintenance';
/** How often expired keys are purged; a key lives `IDEMPOTENCY_TTL_SECONDS`. */
export const PURGE_INTERVAL_MS = 10 * 60_000;

/**
 * Deletes expired idempotency keys periodically, as a scheduled job on the job-queue port (once per
 * interval across replicas, in a process that runs workers). The purge is a plain delete of expired rows
 * in SKIP LOCKED batches, and an expired row still there is ignored anyway, so a late or repeated run
 * changes nothing a client sees.
 */
@Injectable()
export class IdempotencyCleanup implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('Idempotency');

  constructor(
    private readonly store: IdempotencyStore,
    private readonly queue: JobQueue,
  ) {}

  onModuleInit(): void {
    this.queue.registerProcessor(IDEMPOTENCY_MAINTENANCE_QUEUE, () => this.purge(), { concurrency: 1 });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.schedule(IDEMPOTENCY_MAINTENANCE_QUEUE, 'purge-expired', PURGE_INTERVAL_MS);
  }

  /** One purge; a failure is logged and the next scheduled run tries again. */
  async purge(): Promise<void> {
    try {
      const deleted = await this.store.purgeExpired();
      if (deleted > 0) this.logger.log(`purged ${deleted} expired idempotency keys`);
    } catch (error: unknown) {
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.warn(`purging expired idempotency keys failed: ${reason}`);
    }
  }
}
