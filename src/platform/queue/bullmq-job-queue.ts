import { Logger } from '@nestjs/common';
import { DelayedError, Job, Queue } from 'bullmq';
import { Cluster } from 'ioredis';
import type { RedisConnection } from '../redis/redis-connection';
import type { QueueWorker } from './bullmq-queue-worker';
import { enqueueTraced, runTraced, TracedJobData, withTrace } from './job-trace';
import {
  DEFAULT_JOB_ATTEMPTS,
  DEFAULT_JOB_BACKOFF_MS,
  EnqueueOptions,
  JobHandler,
  JobInterrupted,
  JobQueue,
  JobState,
  ProcessorOptions,
} from './job-queue';

/** A periodic job as `schedule()` was given it; its scheduler id is `<queue>.<name>`. */
interface Schedule {
  queue: string;
  name: string;
  everyMs: number;
}

interface Registration {
  handler: JobHandler<unknown>;
  options: ProcessorOptions<unknown>;
}

/**
 * Finished jobs leave Redis after a bounded age and count: completed ones soon (task rows hold the
 * outcome), failed ones after a week, for inspection.
 */
const RETENTION = {
  removeOnComplete: { age: 3_600, count: 1_000 },
  removeOnFail: { age: 7 * 86_400, count: 5_000 },
};

/** How long a producer call waits for the first connection to Redis (`reachable()`). */
const READY_WAIT_MS = 1_000;

/**
 * BullMQ adapter of the job-queue port, on @nestjs/bullmq: its queues (`BullModule.registerQueue`) are the
 * producers, in every role; its workers (`bullMqQueueWorker`, a `WorkerHost` per queue) exist only where the role
 * runs them (QueueModule), and run the processors registered here. Jobs survive restarts and stalled jobs (a
 * worker that died mid-job) are picked up again by BullMQ's stall detection.
 */
export class BullMqJobQueue extends JobQueue {
  readonly backend = 'bullmq' as const;
  private readonly logger = new Logger('BullMqJobQueue');
  private readonly queues = new Map<string, Queue>();
  private readonly registrations = new Map<string, Registration>();
  private readonly workers: QueueWorker[] = [];

  /** Every schedule set up by this process, by scheduler id: set up again when Redis comes back without it. */
  private readonly schedules = new Map<string, Schedule>();

  private readonly running = new Set<AbortController>();
  private closing = false;
  private readonly reconnectListeners: Array<() => void> = [];
  /** Whether the producer connection was ever ready: until then a producer call waits for it, briefly. */
  private connectedOnce = false;
  /** When the wait for the first connection ends (set by the first producer call). */
  private firstWaitEnds?: number;

  /** `producerConnection` is the one `queues` share (queue-connections.ts). */
  constructor(
    private readonly producerConnection: RedisConnection,
    queues: readonly Queue[],
  ) {
    super();
    for (const queue of queues) {
      queue.on('error', () => undefined);
      this.queues.set(queue.name, queue);
    }
    // Redis may come back without its data (restarted without persistence, failed over to an empty
    // replica): its job schedulers are gone then, and the maintenance jobs (the reconciler among them)
    // would never run again until this process restarted. Every reconnect sets up the missing ones again.
    this.producerConnection.on('ready', () => void this.reconnected());
    if (producerConnection instanceof Cluster) this.onFailover(producerConnection);
  }

  /**
   * A cluster client emits no `ready` when a master fails over: it stays ready and moves to the replica that
   * took over when it next refreshes the cluster's slots. That replica may lack the writes its master had not
   * yet replicated (a schedule's next run, a job), so a change of the cluster's masters is a reconnect too.
   */
  private onFailover(cluster: Cluster): void {
    const masters = () =>
      cluster
        .nodes('master')
        .map((node) => `${node.options.host}:${node.options.port}`)
        .sort()
        .join(',');
    let known: string | undefined;
    cluster.on('ready', () => (known = masters()));
    cluster.on('refresh', () => {
      if (known === undefined || cluster.status !== 'ready') return;
      const now = masters();
      if (now === known) return;
      known = now;
      void this.reconnected();
    });
  }

  onReconnect(listener: () => void): void {
    this.reconnectListeners.push(listener);
  }

  private async reconnected(): Promise<void> {
    this.connectedOnce = true;
    await this.restoreSchedules();
    if (!this.closing) for (const listener of this.reconnectListeners) listener();
  }

  async enqueue<T>(queue: string, name: string, data: T, options: EnqueueOptions = {}): Promise<string> {
    await this.reachable();
    const job = await enqueueTraced({ system: this.backend, queue, name }, data, (traced) =>
      this.queue(queue).add(name, traced, {
        jobId: options.jobId,
        attempts: options.attempts ?? DEFAULT_JOB_ATTEMPTS,
        backoff: { type: 'exponential', delay: options.backoffMs ?? DEFAULT_JOB_BACKOFF_MS },
        ...RETENTION,
      }),
    );
    return job.id ?? options.jobId ?? '';
  }

  registerProcessor<T>(queue: string, handler: JobHandler<T>, options: ProcessorOptions<T> = {}): void {
    this.queue(queue);
    this.registrations.set(queue, {
      handler: handler as JobHandler<unknown>,
      options: options as ProcessorOptions<unknown>,
    });
  }

  /**
   * Remembered first, then set up if Redis is reachable (`reachable()`): should setting it up fail, the next
   * reconnect sets it up, as after Redis came back empty (`restoreSchedules`).
   */
  async schedule(queue: string, name: string, everyMs: number): Promise<void> {
    const id = `${queue}.${name}`;
    const schedule = { queue, name, everyMs };
    this.schedules.set(id, schedule);
    try {
      await this.upsertScheduler(schedule);
    } catch (error: unknown) {
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.warn(`schedule ${id} not set up yet (${reason}): it will be when Redis is reachable`);
    }
  }

  /** One scheduler per id across all processes: upserting it again only refreshes its settings. */
  private async upsertScheduler({ queue, name, everyMs }: Schedule): Promise<void> {
    await this.reachable();
    await this.queue(queue).upsertJobScheduler(
      `${queue}.${name}`,
      { every: everyMs },
      { name, data: withTrace({}), opts: RETENTION },
    );
  }

  /**
   * After a reconnect: the schedulers Redis no longer has, or whose next run it no longer has (a scheduler
   * without one never runs again), are set up again; the others are left alone.
   */
  private async restoreSchedules(): Promise<void> {
    for (const [id, schedule] of this.schedules) {
      if (this.closing) return;
      try {
        const queue = this.queue(schedule.queue);
        const scheduler = await queue.getJobScheduler(id);
        const nextRun = scheduler?.next === undefined ? undefined : `repeat:${id}:${scheduler.next}`;
        if (nextRun && (await queue.getJobState(nextRun)) !== 'unknown') continue;
        await this.upsertScheduler(schedule);
        this.logger.warn(
          `schedule ${id} set up after Redis reconnected: Redis did not have it or its next run`,
        );
      } catch (error: unknown) {
        const reason = error instanceof Error ? error.message : String(error);
        this.logger.warn(`schedule ${id} not restored after Redis reconnected: ${reason}`);
      }
    }
  }

  async jobState(queue: string, jobId: string): Promise<JobState> {
    await this.reachable();
    const state = await this.queue(queue).getJobState(jobId);
    if (state === 'prioritized' || state === 'waiting-children') return 'waiting';
    return state as JobState;
  }

  async depth(queue: string): Promise<number> {
    await this.reachable();
    const counts = await this.queue(queue).getJobCounts('waiting', 'delayed', 'prioritized');
    return Object.values(counts).reduce((sum, n) => sum + n, 0);
  }

  /**
   * Starts the workers @nestjs/bullmq made for this process's role (none in the `api` role), once every
   * processor has registered: each takes jobs with its processor's concurrency.
   */
  start(workers: readonly QueueWorker[]): void {
    for (const host of workers) {
      this.workers.push(host);
      const worker = host.worker;
      const registration = this.registrations.get(worker.name);
      if (!registration) {
        this.logger.error(`queue ${worker.name} has no processor: its worker does not run`);
        continue;
      }
      worker.concurrency = registration.options.concurrency ?? 1;
      worker.run().catch((error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        this.logger.warn(`worker ${worker.name} stopped: ${reason}`);
      });
    }
  }

  /** Runs a job of `queueName` taken by its worker (`QueueWorker.process`) with the queue's processor. */
  async process(queueName: string, job: Job, token?: string): Promise<void> {
    const registration = this.registrations.get(queueName);
    if (!registration) throw new Error(`queue ${queueName} has no processor`);
    const interrupt = new AbortController();
    // A job fetched while closing is handed back at its first safe point.
    if (this.closing) interrupt.abort();
    this.running.add(interrupt);
    try {
      const attempt = job.attemptsMade + 1;
      await runTraced(
        job.data as TracedJobData<unknown>,
        (payload) =>
          registration.handler({
            id: job.id ?? '',
            queue: queueName,
            name: job.name,
            data: payload,
            attempt,
            maxAttempts: job.opts.attempts ?? 1,
            signal: interrupt.signal,
          }),
        { system: this.backend, queue: queueName, name: job.name, id: job.id, attempt },
      );
    } catch (error: unknown) {
      if (!(error instanceof JobInterrupted)) throw error;
      // Back to the queue at once for another worker, without using an attempt.
      await job.moveToDelayed(Date.now(), token);
      throw new DelayedError();
    } finally {
      this.running.delete(interrupt);
    }
  }

  /**
   * `failed` fires for every failed attempt; only a job that will not run again (its attempts used up, or
   * failed for good after stalling too often) is exhausted.
   */
  async failed(queueName: string, job: Job | undefined, error: Error): Promise<void> {
    const registration = this.registrations.get(queueName);
    if (!job || !registration) return;
    const final =
      job.attemptsMade >= (job.opts.attempts ?? 1) ||
      (await job.getState().catch(() => 'unknown')) === 'failed';
    if (!final) return;
    this.logger.error(
      `job ${queueName}/${job.name} ${job.id} failed after ${job.attemptsMade} attempts: ${error.message}`,
    );
    await registration.options
      .onExhausted?.(
        {
          id: job.id ?? '',
          queue: queueName,
          name: job.name,
          data: (job.data as TracedJobData<unknown>).payload,
          attempt: job.attemptsMade,
          maxAttempts: job.opts.attempts ?? 1,
        },
        error,
      )
      .catch((e: unknown) => this.logger.error(`onExhausted of ${queueName} failed: ${String(e)}`));
  }

  /**
   * Stops taking jobs; running handlers are told to stop at their next safe point (hand-back) or finish;
   * then the workers close.
   */
  async closeWorkers(): Promise<void> {
    this.closing = true;
    // A worker cut off from Redis can neither finish nor hand back a job (both are Redis commands), and
    // BullMQ's graceful close would wait for Redis: it closes at once (its job's lock expires, and another
    // worker takes the job over once Redis is back).
    const closed = Promise.allSettled(
      this.workers.map((host) => host.worker.close(host.connection.status !== 'ready')),
    );
    for (const interrupt of this.running) interrupt.abort();
    await closed;
    this.workers.length = 0;
  }

  /** After the workers: the queues are closed by @nestjs/bullmq, their shared connection here. */
  async close(): Promise<void> {
    await this.closeWorkers();
    this.producerConnection.disconnect();
  }

  /**
   * Resolves when the producer connection is ready. While Redis is away the caller (a request starting a
   * task, a metrics scrape) fails at once instead of waiting for it; only a process still making its first
   * connection waits, READY_WAIT_MS from its first producer call in all (a start while Redis is down sets up
   * several schedules, one after the other: they share that wait).
   */
  private async reachable(): Promise<void> {
    const connection = this.producerConnection;
    if (connection.status === 'ready') return;
    this.firstWaitEnds ??= Date.now() + READY_WAIT_MS;
    const waitMs = this.firstWaitEnds - Date.now();
    if (this.connectedOnce || waitMs <= 0) throw new Error('Redis is not reachable');
    await new Promise<void>((resolve, reject) => {
      const ready = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        connection.off('ready', ready);
        reject(new Error('Redis is not reachable'));
      }, waitMs);
      connection.once('ready', ready);
    });
  }

  private queue(name: string): Queue {
    const queue = this.queues.get(name);
    if (!queue) throw new Error(`queue ${name} is not one of the queues QueueModule registers`);
    return queue;
  }
}
