import { Injectable } from '@nestjs/common';
import { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ReplicaSet } from '../database/replicas';
import { JobQueue } from '../queue/job-queue';

/**
 * Prometheus metrics of this process: request durations by route template, process metrics, queue depth,
 * the duration and failures of jobs by type, and the read replicas' state and the reads they served.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly queues = new Set<string>();
  private readonly requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route template and status',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  private readonly jobDuration = new Histogram({
    name: 'job_duration_seconds',
    help: 'Duration of job runs by type and outcome (completed, cancelled, interrupted, error)',
    labelNames: ['type', 'outcome'] as const,
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
    registers: [this.registry],
  });
  private readonly jobFailures = new Counter({
    name: 'job_failures_total',
    help: 'Jobs failed for good (attempts used up) by type',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  private readonly webhookAttempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts by result (SUCCEEDED, HTTP_STATUS, TIMEOUT, CONNECTION_FAILED, URL_NOT_ALLOWED)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  private readonly webhookDeliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook deliveries that reached a final state, by status (SUCCEEDED, FAILED)',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });
  private readonly webhookLatency = new Histogram({
    name: 'webhook_delivery_latency_seconds',
    help: 'From the event (its delivery created in its transaction) to the receiver accepting it',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600],
    registers: [this.registry],
  });
  private oldestPendingWebhook: () => Promise<number> = async () => 0;
  private readonly eventsRecorded = new Counter({
    name: 'events_recorded_total',
    help: 'Events recorded by type (counted when the statement writing them returns)',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });
  private feedLagSource: (() => Promise<number>) | undefined;
  private subscriberLagSource: (() => Promise<Array<{ name: string; seconds: number }>>) | undefined;
  private readonly defaultPartitionSources = new Map<string, () => Promise<number>>();

  constructor(queue: JobQueue, replicas: ReplicaSet) {
    collectDefaultMetrics({ register: this.registry });
    if (replicas.enabled) this.trackReplicas(replicas);
    const queues = this.queues;
    const oldestPendingWebhook = () => this.oldestPendingWebhook();
    new Gauge({
      name: 'webhook_oldest_pending_delivery_age_seconds',
      help: 'Age of the oldest webhook delivery still pending to an enabled endpoint (0 when none, -1 unknown)',
      registers: [this.registry],
      async collect() {
        this.set(await oldestPendingWebhook().catch(() => -1));
      },
    });
    new Gauge({
      name: 'job_queue_depth',
      help: 'Jobs waiting in a queue',
      labelNames: ['queue'] as const,
      registers: [this.registry],
      async collect() {
        for (const name of queues) {
          this.set({ queue: name }, await queue.depth(name).catch(() => -1));
        }
      },
    });
    const lag = () => this.feedLagSource;
    new Gauge({
      name: 'events_feed_lag_seconds',
      help: 'Longest current wait on the events numbering lock: a feed page waiting for committing writers, or writers behind it',
      registers: [this.registry],
      async collect() {
        const source = lag();
        if (source) this.set(await source().catch(() => -1));
      },
    });
    const defaultPartitions = this.defaultPartitionSources;
    new Gauge({
      name: 'db_default_partition_rows',
      help: 'Rows in the default partition of a table partitioned by day: writes that found no partition for their day (0 normally, -1 unknown)',
      labelNames: ['table'] as const,
      registers: [this.registry],
      async collect() {
        for (const [table, source] of defaultPartitions) {
          this.set({ table }, await source().catch(() => -1));
        }
      },
    });
    const subscriberLag = () => this.subscriberLagSource;
    new Gauge({
      name: 'event_subscriber_lag_seconds',
      help: 'Per event subscriber, how long the oldest event it has not handled yet has waited (0 when caught up)',
      labelNames: ['subscriber'] as const,
      registers: [this.registry],
      async collect() {
        const source = subscriberLag();
        const lags = source ? await source().catch(() => []) : [];
        for (const { name, seconds } of lags) this.set({ subscriber: name }, seconds);
      },
    });
  }

  /** Gauges of each replica's state and lag, counters of replica reads by the server that answered them. */
  private trackReplicas(replicas: ReplicaSet): void {
    new Gauge({
      name: 'db_replica_up',
      help: 'Whether a read replica serves replica reads (1), or is skipped: lagging or unreachable (0)',
      labelNames: ['replica'] as const,
      registers: [this.registry],
      collect() {
        for (const replica of replicas.state())
          this.set({ replica: replica.name }, replica.status === 'up' ? 1 : 0);
      },
    });
    new Gauge({
      name: 'db_replica_lag_seconds',
      help: 'How far a read replica was behind the primary at the last sample, by WAL position (-1 unknown)',
      labelNames: ['replica'] as const,
      registers: [this.registry],
      collect() {
        for (const replica of replicas.state()) {
          this.set({ replica: replica.name }, replica.lagMs === null ? -1 : replica.lagMs / 1000);
        }
      },
    });
    new Counter({
      name: 'db_replica_reads_total',
      help: 'Reads a replica may serve (lists, searches, reports, exports), by the server that answered: a replica or the primary',
      labelNames: ['server'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc({ server: 'primary' }, replicas.primaryReads);
        for (const replica of replicas.state()) this.inc({ server: replica.name }, replica.reads);
      },
    });
    new Counter({
      name: 'db_replica_fallbacks_total',
      help: 'Reads that failed on a read replica and were answered by the primary',
      labelNames: ['replica'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const replica of replicas.state()) this.inc({ replica: replica.name }, replica.fallbacks);
      },
    });
  }

  /** Events of `type` written by a change (`count` of them: a batch writes one per order). */
  countEvents(type: string, count: number): void {
    if (count > 0) this.eventsRecorded.inc({ type }, count);
  }

  /**
   * The source of `events_feed_lag_seconds`: how long the longest current wait on the events numbering lock
   * has lasted, i.e. how long committed events have been held from the feed (the events module gives it; -1
   * when it cannot be read).
   */
  trackFeedLag(source: () => Promise<number>): void {
    this.feedLagSource = source;
  }

  /** The source of `event_subscriber_lag_seconds` (the events module gives it). */
  trackSubscriberLag(source: () => Promise<Array<{ name: string; seconds: number }>>): void {
    this.subscriberLagSource = source;
  }

  /** The source of `db_default_partition_rows{table}` (the module owning the partitioned table gives it). */
  trackDefaultPartitionRows(table: string, source: () => Promise<number>): void {
    this.defaultPartitionSources.set(table, source);
  }

  /** Reads the age of the oldest pending webhook delivery when /metrics is scraped (the webhooks module). */
  trackOldestPendingWebhook(probe: () => Promise<number>): void {
    this.oldestPendingWebhook = probe;
  }

  countWebhookAttempt(result: string): void {
    this.webhookAttempts.inc({ result });
  }

  /** A delivery reached its final state; a success also records its latency from the event. */
  countWebhookDelivery(status: 'SUCCEEDED' | 'FAILED', latencySeconds?: number): void {
    this.webhookDeliveries.inc({ status });
    if (latencySeconds !== undefined) this.webhookLatency.observe(latencySeconds);
  }

  /** Queues whose depth /metrics reports (modules with processors call this). */
  trackQueue(name: string): void {
    this.queues.add(name);
  }

  observeJob(
    type: string,
    outcome: 'completed' | 'cancelled' | 'interrupted' | 'error',
    seconds: number,
  ): void {
    this.jobDuration.observe({ type, outcome }, seconds);
  }

  countJobFailure(type: string): void {
    this.jobFailures.inc({ type });
  }

  /** Times every request; unmatched routes are labelled `unmatched` to keep the label set bounded. */
  instrument(fastify: FastifyInstance): void {
    fastify.addHook('onResponse', (request, reply, done) => {
      this.requestDuration.observe(
        {
          method: request.method,
          route: request.routeOptions.url ?? 'unmatched',
          status_code: String(reply.statusCode),
        },
        reply.elapsedTime / 1000,
      );
      done();
    });
  }
}
