import { Logger, OnApplicationShutdown } from '@nestjs/common';
import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Job, WorkerOptions } from 'bullmq';
import type { RedisConnection } from '../redis/redis-connection';

/** What a worker hands its jobs and failures to: the BullMQ adapter, which holds the processors. */
export interface QueueJobs {
  process(queue: string, job: Job, token?: string): Promise<void>;
  failed(queue: string, job: Job | undefined, error: Error): Promise<void>;
}

/** The worker of one queue, and the connection it was given (closed with the application). */
export interface QueueWorker extends WorkerHost {
  readonly connection: RedisConnection;
}

/**
 * The worker of one queue, as @nestjs/bullmq runs workers: a `@Processor` provider (BullModule makes BullMQ's
 * `Worker` for each such provider) whose jobs and failures go to the processor registered on the job-queue
 * port, so processors are written once for both adapters. Made by a factory provider of QueueModule, only
 * where the role runs workers (a `@Processor` provider is a worker wherever it is), with its connection.
 */
export function bullMqQueueWorker(
  queue: string,
  jobs: QueueJobs,
  options: WorkerOptions & { connection: RedisConnection },
): QueueWorker {
  @Processor(queue, options)
  class BullMqQueueWorker extends WorkerHost implements QueueWorker, OnApplicationShutdown {
    readonly connection = options.connection;
    private readonly logger = new Logger('BullMqJobQueue');

    process(job: Job, token?: string): Promise<void> {
      return jobs.process(queue, job, token);
    }

    @OnWorkerEvent('failed')
    onFailed(job: Job | undefined, error: Error): void {
      void jobs.failed(queue, job, error);
    }

    @OnWorkerEvent('error')
    onError(error: Error): void {
      this.logger.warn(`worker ${queue}: ${error.message}`);
    }

    /** After the worker has closed (`BullMqJobQueue.closeWorkers`): BullMQ leaves a given connection open. */
    onApplicationShutdown(): void {
      this.connection.disconnect();
    }
  }
  return new BullMqQueueWorker();
}
