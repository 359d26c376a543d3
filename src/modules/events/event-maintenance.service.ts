import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.module';
import { defaultPartitionName, TimePartitions } from '../../platform/database/time-partitions';
import { Transactions } from '../../platform/database/transactions';
import { MetricsService } from '../../platform/metrics/metrics.service';
import { JobQueue } from '../../platform/queue/job-queue';
import { EventsRepository } from './persistence/events.repository';

export const EVENTS_MAINTENANCE_QUEUE = 'events-maintenance';
/** How often the maintenance pass runs (days made ahead, a sequence mark, retention). */
export const RETENTION_INTERVAL_MS = 3_600_000;
/** Days made ahead of today: a week of the job not running before a write finds no day of its own. */
export const EVENT_DAYS_AHEAD = 7;
const EVENTS_TABLE = 'events';
const RETENTION_BATCH = 1000;
const DAY_MS = 86_400_000;

/**
 * Keeps the outbox, partitioned by day (docs/decisions/0153-events-partitioned-by-day.md): one scheduled job
 * on the job-queue port (once per interval across replicas) makes the days ahead, records a sequence mark
 * (what feed pages map their cursor to days with) and drops the days past EVENT_RETENTION_DAYS, raising the
 * retention mark feed cursors are judged by. Also gives /metrics the feed's lag and the default partition's
 * rows.
 */
@Injectable()
export class EventMaintenance implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('Events');

  constructor(
    private readonly events: EventsRepository,
    private readonly partitions: TimePartitions,
    private readonly transactions: Transactions,
    private readonly queue: JobQueue,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.queue.registerProcessor(
      EVENTS_MAINTENANCE_QUEUE,
      async () => {
        await this.maintain();
      },
      { concurrency: 1 },
    );
    this.metrics.trackFeedLag(() => this.events.numberingHoldSeconds());
    this.metrics.trackDefaultPartitionRows(EVENTS_TABLE, () => this.partitions.defaultRows(EVENTS_TABLE));
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.schedule(EVENTS_MAINTENANCE_QUEUE, 'retention', RETENTION_INTERVAL_MS);
  }

  /** The scheduled pass: days made ahead, a mark, retention. */
  async maintain(now: Date = new Date()): Promise<void> {
    const made = await this.makeDaysAhead(now);
    if (made.length > 0) this.logger.log({ msg: 'event partitions made', partitions: made });
    await this.transactions.runAlone((tx) => this.events.recordMark(tx));
    await this.applyRetention(now);
  }

  /** Makes the partitions of today and the EVENT_DAYS_AHEAD days after it that do not exist yet. */
  makeDaysAhead(now: Date = new Date()): Promise<string[]> {
    return this.partitions.makeDaysAhead(EVENTS_TABLE, EVENT_DAYS_AHEAD, now);
  }

  /**
   * Drops the days wholly older than EVENT_RETENTION_DAYS, each with the retention mark raised to its highest
   * number in the dropping transaction, and deletes the rows past it that partitions of more than a day hold
   * (the default one: normally none; the table from before partitioning, until it is wholly past and dropped).
   */
  async applyRetention(now: Date = new Date()): Promise<{ partitions: string[]; deletedRows: number }> {
    const cutoff = new Date(now.getTime() - this.config.events.retentionDays * DAY_MS);
    const dropped = await this.partitions.dropBefore(EVENTS_TABLE, cutoff, {
      beforeDrop: (tx, partition) => this.events.markPartitionPurged(tx, partition.from, partition.to),
    });
    // Partitions that are not one day keep rows of many: theirs past the cutoff are deleted in batches.
    const mixed = [
      ...(await this.partitions.list(EVENTS_TABLE)).filter((p) => p.from === null).map((p) => p.name),
      defaultPartitionName(EVENTS_TABLE),
    ];
    let deletedRows = 0;
    for (const partition of mixed) {
      for (;;) {
        const batch = await this.transactions.run((tx) =>
          this.events.purgeRowsBefore(tx, partition, cutoff, RETENTION_BATCH),
        );
        deletedRows += batch;
        if (batch < RETENTION_BATCH) break;
      }
    }
    const partitions = dropped.map((p) => p.name);
    if (partitions.length > 0 || deletedRows > 0) {
      this.logger.log({ msg: 'events past retention dropped', partitions, deletedRows });
    }
    return { partitions, deletedRows };
  }
}
