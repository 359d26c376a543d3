import { Logger } from '@nestjs/common';
import { Job, Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';
import { runTraced, TracedJobData, withTrace } from './job-trace';
import {
  DEFAULT_JOB_ATTEMPTS,
  DEFAULT_JOB_BACKOFF_MS,
  EnqueueOptions,
  JobHandler,
  JobQueue,
  ProcessorOptions,
} from './job-queue';

interface Registration {
  handler: JobHandler<unknown>;
  options: ProcessorOptions<unknown>;
}

/** Completed jobs are only kept briefly (task rows hold the outcome); failures a week, for inspection. */
const RETENTION = {
  removeOnComplete: { age: 3_600, count: 1_000 },
  removeOnFail: { age: 7 * 86_400 },
};

/**
 * BullMQ adapter: producers in every role, workers only where the role runs them. Jobs survive restarts
 * and stalled jobs (a worker that died mid-job) are picked up again by BullMQ's stall detection.
 */
export class BullMqJobQueue extends JobQueue {
  readonly backend = 'bullmq' as const;
  private readonly logger = new Logger('BullMqJobQueue');
  private readonly queues = new Map<string, Queue>();
  private readonly registrations = new Map<string, Registration>();
  private readonly workers: Worker[] = [];
  private readonly workerConnections: IORedis[] = [];
  private readonly producerConnection: IORedis;

  constructor(
    private readonly redisUrl: string,
    private readonly prefix: string,
    private readonly runsWorkers: boolean,
  ) {
    super();
    // Producers fail fast while Redis is down instead of queueing commands in memory.
    this.producerConnection = new IORedis(redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
    this.producerConnection.on('error', () => undefined);
  }

  async enqueue<T>(queue: string, name: string, data: T, options: EnqueueOptions = {}): Promise<string> {
    const job = await this.queue(queue).add(name, withTrace(data), {
      jobId: options.jobId,
      attempts: options.attempts ?? DEFAULT_JOB_ATTEMPTS,
      backoff: { type: 'exponential', delay: options.backoffMs ?? DEFAULT_JOB_BACKOFF_MS },
      ...RETENTION,
    });
    return job.id ?? options.jobId ?? '';
  }

  registerProcessor<T>(queue: string, handler: JobHandler<T>, options: ProcessorOptions<T> = {}): void {
    this.registrations.set(queue, {
      handler: handler as JobHandler<unknown>,
      options: options as ProcessorOptions<unknown>,
    });
  }

  async depth(queue: string): Promise<number> {
    const counts = await this.queue(queue).getJobCounts('waiting', 'delayed', 'prioritized');
    return Object.values(counts).reduce((sum, n) => sum + n, 0);
  }

  start(): void {
    if (!this.runsWorkers) return;
    for (const [queueName, registration] of this.registrations) {
      // Workers need connections that may block (maxRetriesPerRequest: null, PITFALLS 6); BullMQ does not
      // close a connection it was given, so they are kept to be closed here.
      const connection = new IORedis(this.redisUrl, { maxRetriesPerRequest: null });
      connection.on('error', () => undefined);
      this.workerConnections.push(connection);
      const worker = new Worker(
        queueName,
        async (job: Job) =>
          runTraced(job.data as TracedJobData<unknown>, (payload) =>
            registration.handler({
              id: job.id ?? '',
              queue: queueName,
              name: job.name,
              data: payload,
              attempt: job.attemptsMade + 1,
              maxAttempts: job.opts.attempts ?? 1,
            }),
          ),
        {
          connection,
          prefix: this.prefix,
          concurrency: registration.options.concurrency ?? 1,
        },
      );
      worker.on('failed', (job, error) => {
        if (!job || job.attemptsMade < (job.opts.attempts ?? 1)) return;
        this.logger.error(
          `job ${queueName}/${job.name} ${job.id} failed after ${job.attemptsMade} attempts: ${error.message}`,
        );
        void registration.options
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
      });
      worker.on('error', (error) => this.logger.warn(`worker ${queueName}: ${error.message}`));
      this.workers.push(worker);
    }
  }

  /** Stops taking jobs, lets running ones finish, then closes the connections. */
  async closeWorkers(): Promise<void> {
    await Promise.allSettled(this.workers.map((w) => w.close()));
    this.workers.length = 0;
    for (const connection of this.workerConnections.splice(0)) connection.disconnect();
  }

  async close(): Promise<void> {
    await this.closeWorkers();
    await Promise.allSettled([...this.queues.values()].map((q) => q.close()));
    this.producerConnection.disconnect();
  }

  private queue(name: string): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.producerConnection, prefix: this.prefix });
      queue.on('error', () => undefined);
      this.queues.set(name, queue);
    }
    return queue;
  }
}
