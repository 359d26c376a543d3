import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { enqueueTraced, runTraced, TracedJobData } from './job-trace';
import {
  DEFAULT_JOB_ATTEMPTS,
  DEFAULT_JOB_BACKOFF_MS,
  EnqueueOptions,
  JobHandler,
  JobInterrupted,
  JobQueue,
  JobState,
  ProcessorOptions,
  QueuedJob,
} from './job-queue';

interface Registration {
  handler: JobHandler<unknown>;
  options: ProcessorOptions<unknown>;
  active: number;
}

interface PendingJob extends Omit<QueuedJob<unknown>, 'signal'> {
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
  /** Jobs not yet ended, by id, and where they are. */
  private readonly states = new Map<string, Exclude<JobState, 'completed' | 'failed' | 'unknown'>>();
  private readonly schedules = new Map<string, { queue: string; name: string; everyMs: number }>();
  private readonly interrupt = new AbortController();
  private started = false;
  private closed = false;

  constructor(private readonly runsWorkers: boolean) {
    super();
  }

  async enqueue<T>(queue: string, name: string, data: T, options: EnqueueOptions = {}): Promise<string> {
    if (this.closed) throw new Error('queue is closed');
    const id = options.jobId ?? randomUUID();
    if (this.states.has(id)) return id;
    return enqueueTraced({ system: this.backend, queue, name }, data, async (traced) => {
      this.push({
        id,
        queue,
        name,
        data: traced,
        attempt: 1,
        maxAttempts: options.attempts ?? DEFAULT_JOB_ATTEMPTS,
        backoffMs: options.backoffMs ?? DEFAULT_JOB_BACKOFF_MS,
      });
      return id;
    });
  }

  registerProcessor<T>(queue: string, handler: JobHandler<T>, options: ProcessorOptions<T> = {}): void {
    this.registrations.set(queue, {
      handler: handler as JobHandler<unknown>,
      options: options as ProcessorOptions<unknown>,
      active: 0,
    });
    if (this.started) this.drain(queue);
  }

  /** Always reachable: jobs live in this process. */
  onReconnect(): void {}

  /** In one process a schedule is a timer; it runs only where workers run (the `all` role here). */
  async schedule(queue: string, name: string, everyMs: number): Promise<void> {
    this.schedules.set(`${queue}.${name}`, { queue, name, everyMs });
    if (this.started) this.startSchedule(queue, name, everyMs);
  }

  async jobState(_queue: string, jobId: string): Promise<JobState> {
    return this.states.get(jobId) ?? 'unknown';
  }

  async depth(queue: string): Promise<number> {
    return this.waiting.get(queue)?.length ?? 0;
  }

  start(): void {
    if (!this.runsWorkers) return;
    this.started = true;
    for (const { queue, name, everyMs } of this.schedules.values()) this.startSchedule(queue, name, everyMs);
    for (const queue of this.registrations.keys()) this.drain(queue);
  }

  /** Stops taking jobs, tells running handlers to stop at their next safe point, and waits for them. */
  async close(): Promise<void> {
    this.closed = true;
    this.started = false;
    this.interrupt.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.running]);
  }

  private startSchedule(queue: string, name: string, everyMs: number): void {
    const timer = setInterval(() => {
      if (!this.closed)
        void this.enqueue(queue, name, {}, { jobId: `${queue}.${name}` }).catch(() => undefined);
    }, everyMs);
    timer.unref();
    this.timers.add(timer);
  }

  private push(job: PendingJob): void {
    this.states.set(job.id, 'waiting');
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
    this.states.set(job.id, 'active');
    try {
      await runTraced(
        job.data as TracedJobData<unknown>,
        (payload) => registration.handler({ ...job, data: payload, signal: this.interrupt.signal }),
        { system: this.backend, queue: job.queue, name: job.name, id: job.id, attempt: job.attempt },
      );
      this.states.delete(job.id);
    } catch (caught) {
      const error = caught instanceof Error ? caught : new Error(String(caught));
      if (error instanceof JobInterrupted) {
        // Only on shutdown: the job lived in this process's memory, so it ends here; durable state (a task
        // row) is what brings it back after a restart.
        this.states.delete(job.id);
        return;
      }
      if (job.attempt < job.maxAttempts && !this.closed) {
        const delay = job.backoffMs * 2 ** (job.attempt - 1);
        this.states.set(job.id, 'delayed');
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          this.push({ ...job, attempt: job.attempt + 1 });
        }, delay);
        this.timers.add(timer);
        return;
      }
      this.states.delete(job.id);
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
