import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleInit,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { SecretCipher } from '../encryption/secret-cipher';
import { Transactions } from '../database/transactions';
import { EventFeedService } from '../events/event-feed.service';
import { MetricsService } from '../metrics/metrics.service';
import { JobQueue, QueuedJob } from '../queue/job-queue';
import type { AttemptOutcome } from './domain/attempt-outcome';
import { DestinationPolicy } from './domain/destination-policy';
import { stepAfterAttempt } from './domain/retry-schedule';
import { secretContext, secretsInForce } from './domain/webhook-endpoint';
import {
  AttemptRecord,
  ClaimedDelivery,
  WebhookDeliveriesRepository,
} from './persistence/webhook-deliveries.repository';
import { WEBHOOK_RESPONSE_TIMEOUT_MS, WebhookSender } from './webhook-sender';

export const WEBHOOK_QUEUE = 'webhook-deliveries';

/** Scheduled jobs of the delivery queue and how often each runs. */
export const WEBHOOK_JOBS = {
  /** Catches every due delivery no wake-up reached (a wake lost with Redis, a lease of a dead worker). */
  sweep: 5_000,
  /** Ended deliveries past the retention of events. */
  retention: 3_600_000,
} as const;

/** Attempts in flight in one process at most (each endpoint has its own, smaller, cap across processes). */
const MAX_IN_FLIGHT = 100;
/**
 * How long a worker holds a delivery it is sending: the attempt's time limit and a margin to record it. A
 * worker that dies mid-attempt lets the lease run out, and the delivery is sent again (same `webhook-id`).
 */
export const LEASE_MS = WEBHOOK_RESPONSE_TIMEOUT_MS + 5_000;
/**
 * Statements the processor runs at once at most (recording attempts): it shares the process's connection
 * pool with the API, which must never wait behind a burst of deliveries.
 */
const MAX_STATEMENTS = 5;
/** After a failed claim (PostgreSQL away), the next try. */
const BACKOFF_MS = 1_000;
const RETENTION_BATCH = 1_000;
/** A wake-up looks this long after it is asked for, with every wake-up asked for meanwhile. */
const WAKE_AFTER_MS = 10;

/**
 * Sends webhook deliveries, at least once, in the `worker` and `all` roles. PostgreSQL is the record of
 * what is due; the queue only wakes workers ("wake" after the fan-out subscriber creates deliveries, "sweep" on a
 * schedule, and each reconnection to Redis), so an outage of Redis or a killed worker delays deliveries and
 * loses none. A woken worker claims due deliveries (webhook-deliveries.repository.ts: leased rows, a cap per
 * endpoint) until none is left or its slots are full, sends each with the WebhookSender, records the
 * outcome, and sets a timer for the next due time. Each finished attempt frees a slot and claims again.
 * Each of its writes (a claim, an attempt's record, a retention batch) is a transaction of its own committed
 * at once (`runAlone`): a lease must hold from its claim on, and the processor, part of no request, may run
 * in the async scope of the request whose commit woke it, whose transaction it must not join.
 */
@Injectable()
export class WebhookDeliveryProcessor
  implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown
{
  private readonly logger = new Logger('WebhookDeliveries');
  private readonly runsWorkers: boolean;
  private readonly sender: WebhookSender;
  private readonly schedule: readonly number[];
  private inFlight = 0;
  private statements = 0;
  private readonly waitingForStatement: Array<() => void> = [];
  private draining = false;
  private drainAgain = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private wakeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly queue: JobQueue,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly feed: EventFeedService,
    private readonly transactions: Transactions,
    private readonly cipher: SecretCipher,
    private readonly metrics: MetricsService,
    policy: DestinationPolicy,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.runsWorkers = config.app.role !== 'api';
    this.schedule = config.webhooks.retryScheduleMs;
    this.sender = new WebhookSender({ policy });
  }

  onModuleInit(): void {
    this.queue.registerProcessor(WEBHOOK_QUEUE, (job) => this.run(job), { concurrency: 1 });
    this.queue.onReconnect(() => this.kick());
    this.metrics.trackQueue(WEBHOOK_QUEUE);
    this.metrics.trackOldestPendingWebhook(() => this.deliveries.oldestPendingAgeSeconds());
  }

  async onApplicationBootstrap(): Promise<void> {
    for (const [name, everyMs] of Object.entries(WEBHOOK_JOBS)) {
      await this.queue.schedule(WEBHOOK_QUEUE, name, everyMs);
    }
    // What was due while no worker ran (a restart after a crash) goes out now, not at the next sweep.
    this.kick();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.wakeTimer);
    // Attempts under way end within their time limit; one cut short is sent again after its lease.
    const deadline = Date.now() + WEBHOOK_RESPONSE_TIMEOUT_MS + 1_000;
    while (this.inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    this.sender.close();
  }

  /**
   * Deliveries were created or made due (committed): a worker should look. Here when this process sends
   * them, else through the queue. Coalesced: many events in a moment make one look.
   */
  wake(): void {
    if (this.wakeTimer || this.stopped) return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      if (this.runsWorkers) this.kick();
      else this.queue.enqueue(WEBHOOK_QUEUE, 'wake', {}, { attempts: 1 }).catch(() => undefined);
    }, WAKE_AFTER_MS);
  }

  private async run(job: QueuedJob<unknown>): Promise<void> {
    if (job.name === 'retention') {
      const deleted = await this.purgeEnded();
      if (deleted > 0) this.logger.log({ msg: 'webhook deliveries past retention deleted', deleted });
      return;
    }
    this.kick();
  }

  /** Claims and sends what is due, unless a pass is under way (then it passes once more). */
  private kick(): void {
    if (!this.runsWorkers || this.stopped) return;
    if (this.draining) {
      this.drainAgain = true;
      return;
    }
    this.draining = true;
    void this.drain().finally(() => {
      this.draining = false;
      if (this.drainAgain) this.kick();
    });
  }

  private async drain(): Promise<void> {
    let retryInMs: number | undefined;
    try {
      do {
        this.drainAgain = false;
        while (!this.stopped && this.inFlight < MAX_IN_FLIGHT) {
          const wanted = MAX_IN_FLIGHT - this.inFlight;
          const claimed = await this.transactions.runAlone((tx) =>
            this.deliveries.claim(tx, wanted, LEASE_MS / 1000, randomUUID()),
          );
          if (claimed.length === 0) break;
          await this.start(claimed);
          if (claimed.length < wanted) break;
        }
      } while (this.drainAgain && !this.stopped);
    } catch (error: unknown) {
      this.logger.warn({ msg: 'webhook deliveries not claimed', reason: (error as Error).message });
      retryInMs = BACKOFF_MS;
    }
    await this.setTimer(retryInMs);
  }

  /** Starts the attempts of claimed deliveries; each frees its slot and looks for more when it ends. */
  private async start(claimed: ClaimedDelivery[]): Promise<void> {
    this.inFlight += claimed.length;
    let bodies: Map<string, Buffer>;
    try {
      bodies = await this.feed.servedBodies(claimed.map((delivery) => delivery.eventId));
    } catch (error: unknown) {
      // Their leases run out and they are claimed again.
      this.inFlight -= claimed.length;
      throw error;
    }
    for (const delivery of claimed) {
      void this.attempt(delivery, bodies.get(delivery.eventId)).finally(() => {
        this.inFlight -= 1;
        this.kick();
      });
    }
  }

  private async attempt(delivery: ClaimedDelivery, body: Buffer | undefined): Promise<void> {
    const context = secretContext(delivery.webhookEndpointId);
    const previous = delivery.secrets.previous;
    const secrets = secretsInForce(
      delivery.secrets.current,
      previous && { secret: previous.sealed, expiresAt: previous.expiresAt },
      new Date(),
    ).map((sealed) => this.cipher.open(sealed, context));
    if (!body) {
      // The event is past its retention (deleted with its feed entry): nothing left to send.
      await this.record(delivery, { status: 'FAILED', responseStatus: undefined, error: undefined }, false);
      return;
    }
    const outcome = await this.sender.send({ url: delivery.url, webhookId: delivery.eventId, body, secrets });
    this.metrics.countWebhookAttempt(outcome.result);
    const step = stepAfterAttempt(outcome, delivery.attempts + 1, this.schedule);
    const record: AttemptRecord =
      step.status === 'SUCCEEDED'
        ? { status: 'SUCCEEDED', responseStatus: responseStatusOf(outcome), error: undefined }
        : {
            // A manual retry is one attempt: it ends the delivery whatever happens.
            status: step.status === 'PENDING' && !delivery.singleAttempt ? 'PENDING' : 'FAILED',
            responseStatus: responseStatusOf(outcome),
            error: step.error,
            ...(step.status === 'PENDING' ? { retryInMs: step.retryInMs } : {}),
          };
    await this.record(delivery, record, step.status === 'FAILED' && step.endpointGone);
  }

  private async record(delivery: ClaimedDelivery, record: AttemptRecord, gone: boolean): Promise<void> {
    try {
      const result = await this.withStatement(() =>
        this.transactions.runAlone((tx) => this.deliveries.recordAttempt(tx, delivery, record, gone)),
      );
      if (!result.recorded) return;
      if (record.status !== 'PENDING') {
        this.metrics.countWebhookDelivery(
          record.status,
          record.status === 'SUCCEEDED' ? (Date.now() - delivery.createdAt.getTime()) / 1000 : undefined,
        );
      }
      if (record.status === 'SUCCEEDED') {
        // The endpoint's other pending deliveries were made due.
        this.drainAgain = true;
      }
      if (result.disabled) {
        this.logger.warn({
          msg: 'webhook endpoint disabled',
          webhookEndpointId: delivery.webhookEndpointId,
          reason: result.disabled,
        });
      }
    } catch (error: unknown) {
      // Not recorded: the lease runs out and the delivery is attempted again (receivers dedupe by webhook-id).
      this.logger.warn({
        msg: 'webhook attempt not recorded',
        deliveryId: delivery.deliveryId,
        reason: (error as Error).message,
      });
    }
  }

  /** Deletes ended deliveries past the retention of events, a batch per transaction; how many. */
  private async purgeEnded(): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.transactions.runAlone((tx) =>
        this.deliveries.purgeOlderThan(tx, this.config.events.retentionDays, RETENTION_BATCH),
      );
      total += deleted;
      if (deleted < RETENTION_BATCH) return total;
    }
  }

  /** Runs `statement` when fewer than MAX_STATEMENTS of the processor's own are running. */
  private async withStatement<T>(statement: () => Promise<T>): Promise<T> {
    while (this.statements >= MAX_STATEMENTS) {
      await new Promise<void>((resolve) => this.waitingForStatement.push(resolve));
    }
    this.statements += 1;
    try {
      return await statement();
    } finally {
      this.statements -= 1;
      this.waitingForStatement.shift()?.();
    }
  }

  /** The next look: at the next due time (a retry's, a lease's end), at most a sweep's interval away. */
  private async setTimer(inMs?: number): Promise<void> {
    if (this.stopped) return;
    let delay = inMs;
    if (delay === undefined) {
      const due = await this.deliveries.nextDueAt().catch(() => undefined);
      delay = due ? due.getTime() - Date.now() : WEBHOOK_JOBS.sweep;
      // Due but not claimable: its endpoint's slots are full (an attempt that ends claims again) or another
      // worker holds it. Look again soon, without spinning.
      if (delay <= 0) delay = BACKOFF_MS;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.kick(), Math.min(Math.max(delay, 10), WEBHOOK_JOBS.sweep));
    this.timer.unref();
  }
}

function responseStatusOf(outcome: AttemptOutcome): number | undefined {
  return outcome.result === 'SUCCEEDED' || outcome.result === 'HTTP_STATUS' ? outcome.status : undefined;
}
