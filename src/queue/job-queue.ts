/**
 * The job-queue port. Processors and producers are written once against it; QueueModule binds it to
 * BullMQ when REDIS_URL is set and to an in-process runner otherwise.
 */
export interface QueuedJob<T> {
  id: string;
  queue: string;
  name: string;
  data: T;
  /** 1 for the first run, 2 for the first retry, ... */
  attempt: number;
  maxAttempts: number;
}

export interface EnqueueOptions {
  /** Deduplicates: a job with the same id already queued is not added twice. */
  jobId?: string;
  attempts?: number;
  backoffMs?: number;
}

export interface ProcessorOptions<T> {
  concurrency?: number;
  /** Called once when the last attempt has failed (the job will not run again). */
  onExhausted?: (job: QueuedJob<T>, error: Error) => Promise<void>;
}

export type JobHandler<T> = (job: QueuedJob<T>) => Promise<void>;

export const DEFAULT_JOB_ATTEMPTS = 3;
export const DEFAULT_JOB_BACKOFF_MS = 1_000;

export abstract class JobQueue {
  /** Adds a job; resolves with its id once the job is durably queued. */
  abstract enqueue<T>(queue: string, name: string, data: T, options?: EnqueueOptions): Promise<string>;

  /** Registers the processor of a queue; it starts taking jobs only in a process whose role runs workers. */
  abstract registerProcessor<T>(queue: string, handler: JobHandler<T>, options?: ProcessorOptions<T>): void;

  /** Jobs waiting or delayed in a queue (for metrics). */
  abstract depth(queue: string): Promise<number>;

  /** The backend's name, for /ready and /info. */
  abstract readonly backend: 'bullmq' | 'in-process';
}
