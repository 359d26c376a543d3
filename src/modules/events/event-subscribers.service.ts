import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleInit,
} from '@nestjs/common';
import { DiscoveryService, Reflector } from '@nestjs/core';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.module';
import { Transactions } from '../../platform/database/transactions';
import { MetricsService } from '../../platform/metrics/metrics.service';
import { JobQueue } from '../../platform/queue/job-queue';
import { EVENT_SUBSCRIPTION, type EventSubscriber, type EventSubscriptionOptions } from './event-subscriber';
import { EventRecorder } from './event-recorder.service';
import { EventSubscribersRepository } from './persistence/event-subscribers.repository';
import { EventsRepository } from './persistence/events.repository';

export const EVENT_SUBSCRIBERS_QUEUE = 'event-subscribers';
/** The safety poll: a consumer looks at least this often, whatever wake-up was lost. */
export const SUBSCRIBERS_POLL_MS = 5_000;
/** A failed batch is handed again after this, doubled by each failure in a row, up to the maximum. */
export const SUBSCRIBER_BACKOFF = { firstMs: 1_000, maxMs: 300_000 } as const;
const DEFAULT_BATCH = 100;
/** When another runner holds a consumer for a batch, this one looks again after this. */
const BUSY_RETRY_MS = 200;
/** A wake-up looks this long after it is asked for, with every wake-up asked for meanwhile. */
const WAKE_AFTER_MS = 10;
/**
 * Caught up with a horizon behind the latest number (events still settling): look again after this, not at
 * the safety poll, as the wake-up for those events has been spent.
 */
const SETTLE_RETRY_MS = 60;

interface Consumer {
  name: string;
  batchSize: number;
  handler: EventSubscriber;
  running: boolean;
  again: boolean;
}

type Step = 'more' | 'done' | { retryAt: Date };

/**
 * Runs the event subscribers (`@EventSubscription` providers, found at start) in the `worker` and `all`
 * roles. Each consumer's position is its row in `event_subscribers`; a batch is one transaction that locks
 * the row (another runner skips it: one batch of a consumer at a time, across processes), reads the events
 * after the position up to the feed's horizon (the feed's own rule: every event up to it is visible, so none
 * is skipped), calls the handler and moves the position, so the handler's writes and the position commit
 * together. A runner that dies mid-batch leaves its transaction to be rolled back: the batch is handed again
 * from the kept position. A failed batch waits (`SUBSCRIBER_BACKOFF`) in the row, for every runner.
 *
 * Woken after the commit of every transaction that recorded events (`EventRecorder.onRecorded`): here when
 * this process runs subscribers, else through the job queue; and by a timer at least every
 * `SUBSCRIBERS_POLL_MS`, and on the queue's reconnection. Every write is a transaction of its own
 * (`runAlone`): a wake-up runs in the async scope of the request whose commit woke it.
 */
@Injectable()
export class EventSubscribers implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('EventSubscribers');
  private readonly runs: boolean;
  private consumers: Consumer[] = [];
  private readonly passes = new Set<Promise<void>>();
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private wakeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
    private readonly positions: EventSubscribersRepository,
    private readonly events: EventsRepository,
    private readonly recorder: EventRecorder,
    private readonly transactions: Transactions,
    private readonly queue: JobQueue,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.runs = config.app.role !== 'api';
  }

  onModuleInit(): void {
    const names = new Set<string>();
    for (const wrapper of this.discovery.getProviders()) {
      if (!wrapper.metatype || !wrapper.instance) continue;
      const options = this.reflector.get<EventSubscriptionOptions | undefined>(
        EVENT_SUBSCRIPTION,
        wrapper.metatype,
      );
      if (!options) continue;
      if (names.has(options.name)) throw new Error(`two event subscribers are named ${options.name}`);
      names.add(options.name);
      this.consumers.push({
        name: options.name,
        batchSize: options.batchSize ?? DEFAULT_BATCH,
        handler: wrapper.instance as EventSubscriber,
        running: false,
        again: false,
      });
    }
    this.queue.registerProcessor(EVENT_SUBSCRIBERS_QUEUE, async () => this.kick(), { concurrency: 1 });
    this.queue.onReconnect(() => this.kick());
    this.recorder.onRecorded(() => void this.transactions.afterCommit(() => this.wake()));
    this.metrics.trackSubscriberLag(() => this.positions.lagSeconds());
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.runs) return;
    // A new consumer starts at the horizon: it follows what happens from now on.
    const { horizon } = await this.transactions.runAlone((tx) => this.events.feedHorizon(tx));
    await this.transactions.runAlone(async (tx) => {
      for (const consumer of this.consumers) await this.positions.register(tx, consumer.name, horizon);
    });
    this.kick();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.wakeTimer);
    // A batch under way commits or rolls back; either way its position is right.
    await Promise.allSettled([...this.passes]);
  }

  /** Events were committed: the consumers look. Coalesced: many commits in a moment make one look. */
  wake(): void {
    if (this.wakeTimer || this.stopped) return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      if (this.runs) this.kick();
      else this.queue.enqueue(EVENT_SUBSCRIBERS_QUEUE, 'wake', {}, { attempts: 1 }).catch(() => undefined);
    }, WAKE_AFTER_MS);
  }

  /** Every consumer handles what is after its position, unless a pass of it is under way (then once more). */
  private kick(): void {
    if (!this.runs || this.stopped) return;
    for (const consumer of this.consumers) {
      if (consumer.running) {
        consumer.again = true;
        continue;
      }
      consumer.running = true;
      const pass = this.pass(consumer).finally(() => {
        consumer.running = false;
        this.passes.delete(pass);
        if (consumer.again && !this.stopped) this.kick();
      });
      this.passes.add(pass);
    }
  }

  private async pass(consumer: Consumer): Promise<void> {
    let next = Date.now() + SUBSCRIBERS_POLL_MS;
    try {
      let step: Step;
      do {
        consumer.again = false;
        step = await this.step(consumer);
      } while ((step === 'more' || (step === 'done' && consumer.again)) && !this.stopped);
      if (typeof step === 'object') next = Math.min(next, step.retryAt.getTime());
    } catch (error: unknown) {
      const reason = error instanceof Error ? error.message : String(error);
      const failed = await this.transactions
        .runAlone((tx) => this.positions.failed(tx, consumer.name, reason, SUBSCRIBER_BACKOFF))
        .catch(() => undefined);
      this.logger.warn({
        msg: 'event subscriber batch failed',
        subscriber: consumer.name,
        attempts: failed?.attempts,
        reason,
      });
      next = failed ? failed.nextAttemptAt.getTime() : Date.now() + SUBSCRIBER_BACKOFF.firstMs;
    }
    this.setTimer(next);
  }

  /** One batch of `consumer`, in one transaction. */
  private async step(consumer: Consumer): Promise<Step> {
    const { horizon, latest, at } = await this.transactions.runAlone((tx) =>
      this.events.feedHorizonAndLatest(tx),
    );
    return this.transactions.runAlone(async (tx) => {
      const row = await this.positions.lock(tx, consumer.name);
      // Another runner holds it for a batch: look again soon, for events its batch may have been read before.
      if (!row) return { retryAt: new Date(Date.now() + BUSY_RETRY_MS) };
      if (row.nextAttemptAt && row.nextAttemptAt.getTime() > Date.now())
        return { retryAt: row.nextAttemptAt };
      // Caught up: done, unless numbers were given past the horizon (then soon again).
      const caughtUp = (): Step =>
        latest > horizon ? { retryAt: new Date(Date.now() + SETTLE_RETRY_MS) } : 'done';
      if (row.position >= horizon) return caughtUp();
      const page = await this.events.feedPage(row.position, {}, consumer.batchSize, {
        horizon,
        at,
      });
      if (page.purgedThrough > row.position) {
        this.logger.warn({
          msg: 'events past retention were never handled',
          subscriber: consumer.name,
          position: row.position,
          purgedThrough: page.purgedThrough,
        });
      }
      const full = page.events.length === consumer.batchSize;
      if (page.events.length > 0) await consumer.handler.handle(page.events, tx);
      // A page short of a batch reached the horizon: the position moves to it, past any gap.
      await this.positions.advance(
        tx,
        consumer.name,
        full ? page.events[page.events.length - 1].sequence : horizon,
      );
      return full ? 'more' : caughtUp();
    });
  }

  /** The next look at `at` or earlier (the safety poll, or a failed batch's retry). */
  private setTimer(at: number): void {
    if (this.stopped) return;
    if (this.timer && this.timerAt <= at && this.timerAt > Date.now()) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = Infinity;
        this.kick();
      },
      Math.max(at - Date.now(), 10),
    );
    this.timer.unref();
  }
}
