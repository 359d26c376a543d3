import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.module';
import { Transactions } from '../../platform/database/transactions';
import { MetricsService } from '../../platform/metrics/metrics.service';
import { JobQueue } from '../../platform/queue/job-queue';
import { EventsRepository } from './persistence/events.repository';

export const EVENTS_MAINTENANCE_QUEUE = 'events-maintenance';
/** How often events past EVENT_RETENTION_DAYS are deleted. */
export const RETENTION_INTERVAL_MS = 3_600_000;
const RETENTION_BATCH = 1000;

/**
 * Keeps the outbox bounded: events older than EVENT_RETENTION_DAYS are deleted by a scheduled job on the
 * job-queue port (once per interval across replicas), which raises the retention mark feed cursors are
 * judged by. Also gives /metrics the feed's lag.
 */
@Injectable()
export class EventMaintenance implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('Events');

  constructor(
    private readonly events: EventsRepository,
    private readonly transactions: Transactions,
    private readonly queue: JobQueue,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.queue.registerProcessor(
      EVENTS_MAINTENANCE_QUEUE,
      async () => {
        await this.applyRetention();
      },
      { concurrency: 1 },
    );
    this.metrics.trackFeedLag(() => this.events.numberingHoldSeconds());
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.schedule(EVENTS_MAINTENANCE_QUEUE, 'retention', RETENTION_INTERVAL_MS);
  }

  /** Deletes the events past retention (a job: each batch commits on its own); resolves to how many. */
  async applyRetention(): Promise<number> {
    let deleted = 0;
    for (;;) {
      const batch = await this.transactions.run((tx) =>
        this.events.purgeOlderThan(tx, this.config.events.retentionDays, RETENTION_BATCH),
      );
      deleted += batch;
      if (batch < RETENTION_BATCH) break;
    }
    if (deleted > 0) this.logger.log({ msg: 'events past retention deleted', deleted });
    return deleted;
  }
}
