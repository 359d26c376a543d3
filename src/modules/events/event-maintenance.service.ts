import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.module';
import {
  type BeforeDrop,
  defaultPartitionName,
  TimePartitions,
} from '../../platform/database/time-partitions';
import { Transactions, type Tx } from '../../platform/database/transactions';
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

/** A table partitioned by day that the maintenance job keeps: its days made ahead, those past retention dropped. */
export interface KeptByDay {
  table: string;
  /**
   * Deletes up to `limit` rows older than `cutoff` from `partition`, one of many days (the default one, a
   * table attached below a cut); how many.
   */
  purgeRowsBefore(tx: Tx, partition: string, cutoff: Date, limit: number): Promise<number>;
  /** What the dropping transaction does first, under the table's lock. */
  beforeDrop?: BeforeDrop;
}

/**
 * Keeps the outbox, partitioned by day (docs/decisions/0153-events-partitioned-by-day.md): one scheduled job
 * on the job-queue port (once per interval across replicas) makes the days ahead, records a sequence mark
 * (what feed pages map their cursor to days with) and drops the days past EVENT_RETENTION_DAYS, raising the
 * retention mark feed cursors are judged by. Other modules' tables kept by day for as long as the events
 * (the webhook delivery history) are given to it by `keepByDay`: the same pass makes and drops their days.
 * Also gives /metrics the feed's lag and each table's default partition's rows.
 */
@Injectable()
export class EventMaintenance implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('Events');
  private readonly kept: KeptByDay[] = [];

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
    this.keepByDay({
      table: EVENTS_TABLE,
      purgeRowsBefore: (tx, partition, cutoff, limit) =>
        this.events.purgeRowsBefore(tx, partition, cutoff, limit),
      beforeDrop: (tx, partition) => this.events.markPartitionPurged(tx, partition.from, partition.to),
    });
  }

  /** Keeps `table` by day with the events (EVENT_RETENTION_DAYS), its default partition's rows in /metrics. */
  keepByDay(kept: KeptByDay): void {
    if (this.kept.some((k) => k.table === kept.table)) return;
    this.kept.push(kept);
    this.metrics.trackDefaultPartitionRows(kept.table, () => this.partitions.defaultRows(kept.table));
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.schedule(EVENTS_MAINTENANCE_QUEUE, 'retention', RETENTION_INTERVAL_MS);
  }

  /** The scheduled pass: days made ahead, a mark, retention. */
  async maintain(now: Date = new Date()): Promise<void> {
    const made = await this.makeDaysAhead(now);
    if (made.length > 0) this.logger.log({ msg: 'day partitions made', partitions: made });
    await this.transactions.runAlone((tx) => this.events.recordMark(tx));
    await this.applyRetention(now);
  }

  /**
   * Makes the partitions of today and the EVENT_DAYS_AHEAD days after it that do not exist yet, of every
   * table kept; resolves to the names made.
   */
  async makeDaysAhead(now: Date = new Date()): Promise<string[]> {
    const made: string[] = [];
    for (const { table } of this.kept) {
      made.push(...(await this.partitions.makeDaysAhead(table, EVENT_DAYS_AHEAD, now)));
    }
    return made;
  }

  /**
   * Drops the days wholly older than EVENT_RETENTION_DAYS of every table kept (the events' each with the
   * retention mark raised to its highest number in the dropping transaction), and deletes the rows past it
   * that partitions of more than a day hold (the default one: normally none; a table from before
   * partitioning, until it is wholly past and dropped).
   */
  async applyRetention(now: Date = new Date()): Promise<{ partitions: string[]; deletedRows: number }> {
    const cutoff = new Date(now.getTime() - this.config.events.retentionDays * DAY_MS);
    const partitions: string[] = [];
    let deletedRows = 0;
    for (const kept of this.kept) {
      const dropped = await this.partitions.dropBefore(kept.table, cutoff, { beforeDrop: kept.beforeDrop });
      partitions.push(...dropped.map((p) => p.name));
      // Partitions that are not one day keep rows of many: theirs past the cutoff are deleted in batches.
      const mixed = [
        ...(await this.partitions.list(kept.table)).filter((p) => p.from === null).map((p) => p.name),
        defaultPartitionName(kept.table),
      ];
      for (const partition of mixed) {
        for (;;) {
          const batch = await this.transactions.run((tx) =>
            kept.purgeRowsBefore(tx, partition, cutoff, RETENTION_BATCH),
          );
          deletedRows += batch;
          if (batch < RETENTION_BATCH) break;
        }
      }
    }
    if (partitions.length > 0 || deletedRows > 0) {
      this.logger.log({ msg: 'rows past retention dropped', partitions, deletedRows });
    }
    return { partitions, deletedRows };
  }
}
