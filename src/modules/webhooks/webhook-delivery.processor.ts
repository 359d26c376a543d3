import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleInit,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.module';
import { SecretCipher } from '../../platform/encryption/secret-cipher';
import { Transactions } from '../../platform/database/transactions';
import { EventFeedService } from '../events/event-feed.service';
import { EventMaintenance } from '../events/event-maintenance.service';
import { MetricsService } from '../../platform/metrics/metrics.service';
import { JobQueue } from '../../platform/queue/job-queue';
import type { AttemptOutcome } from './domain/attempt-outcome';
import { DestinationPolicy } from './domain/destination-policy';
import { stepAfterAttempt } from './domain/retry-schedule';
import { secretContext, secretsInForce } from './domain/webhook-endpoint';
import {
  AttemptRecord,
  ClaimedDelivery,
  DELIVERY_HISTORY,
  WebhookDeliveriesRepository,
} from './persistence/webhook-deliveries.repository';
import { type HostResolver, WEBHOOK_HOST_RESOLVER } from './webhook-destinations';
import { WEBHOOK_RESPONSE_TIMEOUT_MS, WebhookSender } from './webhook-sender';

export const WEBHOOK_QUEUE = 'webhook-deliveries';

/**
 * A process's slots for attempts: regular ones, for endpoints not failing, and slow ones, for probes of
 * failing endpoints and for any attempt that has outlasted SLOW_ATTEMPT_MS. An attempt moves from a regular
 * slot to a slow one when it becomes slow, so receivers that stop answering can never hold every slot: the
 * regular ones are free again within SLOW_ATTEMPT_MS (docs/decisions/0149-fair-webhook-delivery.md).
 */
const REGULAR_SLOTS = 100;
const SLOW_SLOTS = 100;
const SLOW_ATTEMPT_MS = 1_000;
/**
 * How long a worker holds a delivery it is sending; it renews the lease every LEASE_RENEWAL_MS while the
 * attempt runs. A worker that dies stops renewing, and another claims the delivery once the lease has run
 * out (same `webhook-id`): within LEASE_MS and a safety poll's interval of the death.
 */
export const LEASE_MS = 3_000;
const LEASE_RENEWAL_MS = 1_000;
/**
 * Each sending process looks for due deliveries this often besides being woken: what no wake reached (a
 * retry coming due, a lease of a dead worker running out, a wake lost with Redis) goes out within it.
 */
export const SAFETY_POLL_MS = 1_000;
/**
 * Records of attempts the processor runs at once at most, for attempts in regular slots and in slow ones: it
 * shares the process's connection pool with the API, which must never wait behind a burst of deliveries, and
 * a burst of timeouts (many silent receivers' attempts ending together) must not hold up the records of
 * healthy endpoints, whose in-flight count lasts until their records commit.
 */
const MAX_RECORDS = { regular: 3, slow: 2 } as const;
/** A wake-up looks this long after it is asked for, with every wake-up asked for meanwhile. */
const WAKE_AFTER_MS = 10;

/** An attempt under way in this process: its lease, and which slot it holds. */
interface HeldAttempt {
  readonly deliveryId: string;
  readonly claimToken: string;
  slow: boolean;
  becomesSlow?: NodeJS.Timeout;
}

/**
 * Sends webhook deliveries, at least once, in the `worker` and `all` roles. PostgreSQL is the record of
 * what is due. The delivery work learns that something is due in one way, `deliveriesDue()` (called once
 * deliveries were created, by the fan-out subscriber, or made due; carried by the queue to a sending process when the caller does not
 * send), besides a safety poll every SAFETY_POLL_MS in each sending process, so an outage of Redis or a
 * killed worker delays deliveries and loses none.
 *
 * A look claims due deliveries (webhook-deliveries.repository.ts: round robin across endpoints, a small cap
 * per endpoint, one probe at a time for a failing one) while this process has free slots, sends each with the
 * WebhookSender and records the outcome. Each finished attempt frees its slot and looks again. Leases are
 * short and renewed while the attempts run. Each of its writes (a claim, a renewal, an attempt's record, a
 * retention batch) is a transaction of its own committed at once (`runAlone`): a lease must hold from its
 * claim on, and the processor, part of no request, may run in the async scope of the request whose commit
 * woke it, whose transaction it must not join.
 */
@Injectable()
export class WebhookDeliveryProcessor
  implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown
{
  private readonly logger = new Logger('WebhookDeliveries');
  private readonly runsWorkers: boolean;
  private readonly sender: WebhookSender;
  private readonly schedule: readonly number[];
  private readonly held = new Map<string, HeldAttempt>();
  private regular = 0;
  private slow = 0;
  private readonly records = {
    regular: new StatementLimit(MAX_RECORDS.regular),
    slow: new StatementLimit(MAX_RECORDS.slow),
  };
  private draining = false;
  private drainAgain = false;
  private renewing = false;
  private stopped = false;
  private poll: NodeJS.Timeout | undefined;
  private renewal: NodeJS.Timeout | undefined;
  private wakeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly queue: JobQueue,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly feed: EventFeedService,
    private readonly transactions: Transactions,
    private readonly cipher: SecretCipher,
    private readonly metrics: MetricsService,
    private readonly maintenance: EventMaintenance,
    policy: DestinationPolicy,
    @Inject(WEBHOOK_HOST_RESOLVER) resolveHost: HostResolver,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.runsWorkers = config.app.role !== 'api';
    this.schedule = config.webhooks.retryScheduleMs;
    this.sender = new WebhookSender({ policy, resolveHost });
  }

  onModuleInit(): void {
    this.queue.registerProcessor(WEBHOOK_QUEUE, () => this.run(), { concurrency: 1 });
    this.metrics.trackQueue(WEBHOOK_QUEUE);
    this.metrics.trackOldestPendingWebhook(() => this.deliveries.oldestPendingAgeSeconds());
    // The history is kept by day, with the events: its days made ahead and dropped past retention by their job.
    this.maintenance.keepByDay({
      table: DELIVERY_HISTORY,
      purgeRowsBefore: (tx, partition, cutoff, limit) =>
        this.deliveries.purgeRowsBefore(tx, partition, cutoff, limit),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.runsWorkers) return;
    // The safety poll's first look is now: what was due while no worker ran goes out at once.
    this.kick();
    this.poll = setInterval(() => this.kick(), SAFETY_POLL_MS).unref();
    this.renewal = setInterval(() => void this.renewLeases(), LEASE_RENEWAL_MS).unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.poll);
    clearTimeout(this.wakeTimer);
    // Attempts under way end within their time limit (their leases still renewed); one cut short is sent
    // again by another worker once its lease has run out.
    const deadline = Date.now() + WEBHOOK_RESPONSE_TIMEOUT_MS + 1_000;
    while (this.held.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    clearInterval(this.renewal);
    this.sender.close();
  }

  /**
   * The one way to tell the delivery work that deliveries were created or made due. Call it when they are
   * committed; called inside a transaction, it waits for that transaction's commit (nothing if it rolls
   * back). The look happens in this process when it sends deliveries, else in a sending one, through the
   * queue. Coalesced: many calls in a moment make one look. Never throws; a lost wake is caught by the
   * safety poll.
   */
  deliveriesDue(): Promise<void> {
    return this.transactions.afterCommit(() => this.wakeSoon());
  }

  private wakeSoon(): void {
    if (this.wakeTimer || this.stopped) return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      if (this.runsWorkers) this.kick();
      else this.queue.enqueue(WEBHOOK_QUEUE, 'wake', {}, { attempts: 1 }).catch(() => undefined);
    }, WAKE_AFTER_MS);
  }

  /**
   * Every job: `wake`, and the hourly `retention` an older version scheduled (the history's retention is now
   * the events' maintenance job's, `EventMaintenance.keepByDay`): look for due deliveries.
   */
  private async run(): Promise<void> {
    this.kick();
  }

  /** Claims and sends what is due, unless a look is under way (then it looks once more). */
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
    try {
      do {
        this.drainAgain = false;
        while (!this.stopped) {
          const wanted = { regular: REGULAR_SLOTS - this.regular, slow: SLOW_SLOTS - this.slow };
          if (wanted.regular <= 0 && wanted.slow <= 0) break;
          const claimed = await this.transactions.runAlone((tx) =>
            this.deliveries.claim(tx, wanted, LEASE_MS / 1000, randomUUID()),
          );
          if (claimed.length === 0) break;
          await this.start(claimed);
          const probes = claimed.filter((delivery) => delivery.probe).length;
          const moreRegular = wanted.regular > 0 && claimed.length - probes === wanted.regular;
          const moreSlow = wanted.slow > 0 && probes === wanted.slow;
          if (!moreRegular && !moreSlow) break;
        }
      } while (this.drainAgain && !this.stopped);
    } catch (error: unknown) {
      // The safety poll looks again.
      this.logger.warn({ msg: 'webhook deliveries not claimed', reason: (error as Error).message });
    }
  }

  /** Starts the attempts of claimed deliveries; each frees its slot and looks for more when it ends. */
  private async start(claimed: ClaimedDelivery[]): Promise<void> {
    for (const delivery of claimed) this.hold(delivery);
    let bodies: Map<string, Buffer>;
    try {
      bodies = await this.feed.servedBodies(claimed.map((delivery) => delivery.eventId));
    } catch (error: unknown) {
      // Their leases run out and they are claimed again.
      for (const delivery of claimed) this.release(delivery.deliveryId);
      throw error;
    }
    for (const delivery of claimed) {
      void this.attempt(delivery, bodies.get(delivery.eventId)).finally(() => {
        this.release(delivery.deliveryId);
        this.kick();
      });
    }
  }

  /** Takes a slot for the attempt: a slow one for a probe, else a regular one until it becomes slow. */
  private hold(delivery: ClaimedDelivery): void {
    const held: HeldAttempt = {
      deliveryId: delivery.deliveryId,
      claimToken: delivery.claimToken,
      slow: false,
    };
    this.held.set(delivery.deliveryId, held);
    if (delivery.probe) {
      held.slow = true;
      this.slow += 1;
      return;
    }
    this.regular += 1;
    held.becomesSlow = setTimeout(() => {
      held.becomesSlow = undefined;
      held.slow = true;
      this.regular -= 1;
      this.slow += 1;
      // A regular slot is free.
      this.kick();
    }, SLOW_ATTEMPT_MS);
  }

  private release(deliveryId: string): void {
    const held = this.held.get(deliveryId);
    if (!held) return;
    this.held.delete(deliveryId);
    clearTimeout(held.becomesSlow);
    if (held.slow) this.slow -= 1;
    else this.regular -= 1;
  }

  /** Extends the leases of the attempts under way, so no other worker takes them while they run. */
  private async renewLeases(): Promise<void> {
    if (this.renewing || this.held.size === 0) return;
    this.renewing = true;
    try {
      const held = [...this.held.values()];
      await this.transactions.runAlone((tx) => this.deliveries.renewLeases(tx, held, LEASE_MS / 1000));
    } catch (error: unknown) {
      // Not renewed: another worker may send them again once their leases run out (receivers dedupe).
      this.logger.warn({ msg: 'webhook delivery leases not renewed', reason: (error as Error).message });
    } finally {
      this.renewing = false;
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
    if (outcome.result === 'URL_NOT_ALLOWED') {
      // Which name resolved to which addresses is known only now; the URL itself may carry a token.
      this.logger.warn({
        msg: 'webhook attempt refused: destination not allowed',
        webhookEndpointId: delivery.webhookEndpointId,
        deliveryId: delivery.deliveryId,
        host: outcome.host,
        addresses: outcome.addresses,
        reason: outcome.detail,
      });
    }
    const step = stepAfterAttempt(outcome, delivery.attempt, this.schedule);
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
      // An attempt that became slow (or a probe) waits only behind other slow ones.
      const lane = this.held.get(delivery.deliveryId)?.slow === false ? 'regular' : 'slow';
      const result = await this.records[lane].run(() =>
        this.transactions.runAlone((tx) =>
          this.deliveries.recordAttempt(tx, delivery, record, gone, this.config.events.retentionDays),
        ),
      );
      if (!result.recorded) return;
      if (record.status !== 'PENDING') {
        this.metrics.countWebhookDelivery(
          record.status,
          record.status === 'SUCCEEDED' ? (Date.now() - delivery.createdAt.getTime()) / 1000 : undefined,
        );
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
}

/** Runs statements at most `limit` at once; the others wait their turn, first come first served. */
class StatementLimit {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(statement: () => Promise<T>): Promise<T> {
    while (this.running >= this.limit) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.running += 1;
    try {
      return await statement();
    } finally {
      this.running -= 1;
      this.waiting.shift()?.();
    }
  }
}

function responseStatusOf(outcome: AttemptOutcome): number | undefined {
  return outcome.result === 'SUCCEEDED' || outcome.result === 'HTTP_STATUS' ? outcome.status : undefined;
}
