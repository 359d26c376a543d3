/**
 * The job-queue port. Processors and producers are written once against it; QueueModule binds it to
 * BullMQ when REDIS_URL is set and to an in-process runner otherwise. Both adapters keep the same
 * semantics: retries with exponential backoff, one exhaustion callback, hand-back on shutdown, schedules.
 */
export interface QueuedJob<T> {
  id: string;
  queue: string;
  name: string;
  data: T;
  /** 1 for the first run, 2 for the first retry, ... */
  attempt: number;
  maxAttempts: number;
  /**
   * Aborted when this process stops taking jobs (shutdown). A long handler checks it at its safe points
   * and throws `JobInterrupted`: the job goes back to the queue for another worker, without using an attempt.
   */
  signal: AbortSignal;
}

/** Thrown by a handler that stopped because `job.signal` was aborted: the job is handed back, not failed. */
export class JobInterrupted extends Error {
  constructor() {
    super('job interrupted by shutdown');
    this.name = 'JobInterrupted';
  }
}

export interface EnqueueOptions {
  /** Deduplicates: a job with the same id already queued is not added twice. No `:` (BullMQ reserves it). */
  jobId?: string;
  attempts?: number;
  backoffMs?: number;
}

export interface ProcessorOptions<T> {
  concurrency?: number;
  /** Called once when the last attempt has failed (the job will not run again). */
  onExhausted?: (job: Omit<QueuedJob<T>, 'signal'>, error: Error) => Promise<void>;
}

export type JobHandler<T> = (job: QueuedJob<T>) => Promise<void>;

/** Where a job is: still to run (`waiting`, `delayed`), running (`active`), ended, or not known to the queue. */
export type JobState = 'waiting' | 'delayed' | 'active' | 'completed' | 'failed' | 'unknown';

export const DEFAULT_JOB_ATTEMPTS = 3;
export const DEFAULT_JOB_BACKOFF_MS = 1_000;

export abstract class JobQueue {
  /** Adds a job; resolves with its id once the job is durably queued; fails at once while the backend is away. */
  abstract enqueue<T>(queue: string, name: string, data: T, options?: EnqueueOptions): Promise<string>;

  /** Registers the processor of a queue; it starts taking jobs only in a process whose role runs workers. */
  abstract registerProcessor<T>(queue: string, handler: JobHandler<T>, options?: ProcessorOptions<T>): void;

  /**
   * Runs a job (`name`, no payload) on `queue` every `everyMs`, once across all processes sharing the queue
   * backend; the processor of `queue` handles it like any job. The one way to run periodic work. The
   * adapter keeps the schedule for the process's life (a backend that lost it gets it again), so callers
   * never retry.
   */
  abstract schedule(queue: string, name: string, everyMs: number): Promise<void>;

  /** The state of a job by id (the reconciler of tasks asks whether a job still exists). */
  abstract jobState(queue: string, jobId: string): Promise<JobState>;

  /** Jobs waiting or delayed in a queue (for metrics). */
  abstract depth(queue: string): Promise<number>;

  /**
   * Calls `listener` each time the backend becomes reachable: when this process first reaches it, and after
   * every outage (never for an in-process queue, which is always reachable). What could not be queued while it
   * was away can be queued then, without waiting for a schedule.
   */
  abstract onReconnect(listener: () => void): void;

  /** The backend's name, for /ready and /info. */
  abstract readonly backend: 'bullmq' | 'in-process';
}
