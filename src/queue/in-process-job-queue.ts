import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { runTraced, TracedJobData, withTrace } from './job-trace';
import {
  DEFAULT_JOB_ATTEMPTS,
  DEFAULT_JOB_BACKOFF_MS,
  EnqueueOptions,
  JobHandler,
  JobQueue,
  ProcessorOptions,
  QueuedJob,
} from './job-queue';

interface Registration {
  handler: JobHandler<unknown>;
  options: ProcessorOptions<unknown>;
  active: number;
}

interface PendingJob extends QueuedJob<unknown> {
  backoffMs: number;
}

/**
 * Runs jobs in this process, for single-process local runs without Redis. Jobs live in memory only:
 * durable state (task rows) is in PostgreSQL, so a restart can re-queue what was lost.
 */
export class InProcessJobQueue extends JobQueue {
  readonly backend = 'in-process' as const;
  private readonly logger = new Logger('InProcessJobQueue');
  private readonly waiting = new Map<string, PendingJob[]>();
  private readonly registrations = new Map<string, Registration>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private readonly knownIds = new Set<string>();
  private started = false;
  private closed = false;

  constructor(private readonly runsWorkers: boolean) {
    super();
  }

  async enqueue<T>(queue: string, name: string, data: T, options: EnqueueOptions = {}): Promise<string> {
    if (this.closed) throw new Error('queue is closed');
    const id = options.jobId ?? randomUUID();
    if (this.knownIds.has(id)) return id;
    this.knownIds.add(id);
    this.push({
      id,
      queue,
      name,
      data: withTrace(data),
      attempt: 1,
      maxAttempts: options.attempts ?? DEFAULT_JOB_ATTEMPTS,
      backoffMs: options.backoffMs ?? DEFAULT_JOB_BACKOFF_MS,
    });
    return id;
  }

  registerProcessor<T>(queue: string, handler: JobHandler<T>, options: ProcessorOptions<T> = {}): void {
    this.registrations.set(queue, {
      handler: handler as JobHandler<unknown>,
      options: options as ProcessorOptions<unknown>,
      active: 0,
    });
    if (this.started) this.drain(queue);
  }

  async depth(queue: string): Promise<number> {
    return this.waiting.get(queue)?.length ?? 0;
  }

  start(): void {
    if (!this.runsWorkers) return;
    this.started = true;
    for (const queue of this.registrations.keys()) this.drain(queue);
  }

  /** Stops taking jobs and waits for the running ones. */
  async close(): Promise<void> {
    this.closed = true;
    this.started = false;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.running]);
  }

  private push(job: PendingJob): void {
    const list = this.waiting.get(job.queue) ?? [];
    list.push(job);
    this.waiting.set(job.queue, list);
    if (this.started) setImmediate(() => this.drain(job.queue));
  }

  private drain(queue: string): void {
    const registration = this.registrations.get(queue);
    const list = this.waiting.get(queue);
    if (!registration || !list || !this.started) return;
    const concurrency = registration.options.concurrency ?? 1;
    while (registration.active < concurrency && list.length > 0) {
      const job = list.shift() as PendingJob;
      registration.active += 1;
      const run = this.execute(registration, job).finally(() => {
        registration.active -= 1;
        this.running.delete(run);
        if (!this.closed) this.drain(queue);
      });
      this.running.add(run);
    }
  }

  private async execute(registration: Registration, job: PendingJob): Promise<void> {
    try {
      await runTraced(job.data as TracedJobData<unknown>, (payload) =>
        registration.handler({ ...job, data: payload }),
      );
      this.knownIds.delete(job.id);
    } catch (caught) {
      const error = caught instanceof Error ? caught : new Error(String(caught));
      if (job.attempt < job.maxAttempts && !this.closed) {
        const delay = job.backoffMs * 2 ** (job.attempt - 1);
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          this.push({ ...job, attempt: job.attempt + 1 });
        }, delay);
        this.timers.add(timer);
        return;
      }
      this.knownIds.delete(job.id);
      this.logger.error(
        `job ${job.queue}/${job.name} ${job.id} failed after ${job.attempt} attempts: ${error.message}`,
      );
      const payload = (job.data as TracedJobData<unknown>).payload;
      await registration.options.onExhausted?.({ ...job, data: payload }, error).catch((e: unknown) => {
        this.logger.error(`onExhausted of ${job.queue} failed: ${String(e)}`);
      });
    }
  }
}
