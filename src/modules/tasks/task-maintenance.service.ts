import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.module';
import { JobQueue, QueuedJob } from '../../platform/queue/job-queue';
import { BlobStorage } from '../../platform/storage/blob-storage';
import { FAILURE_CODES, MAX_TASK_ATTEMPTS, Task } from './domain/task';
import { TasksRepository } from './persistence/tasks.repository';
import { TASK_QUEUES, TaskDispatcher } from './task-dispatcher.service';
import { Transactions } from '../../platform/database/transactions';
import { TaskEndings } from './task-endings.service';

export const MAINTENANCE_QUEUE = 'task-maintenance';

/** The maintenance jobs and how often each runs. */
export const MAINTENANCE_JOBS = {
  reconcile: 30_000,
  retention: 3_600_000,
  'purge-abandoned-blobs': 600_000,
} as const;
type MaintenanceJob = keyof typeof MAINTENANCE_JOBS;

/** A task silent (not queued, started or progressed) this long is checked against the queue. */
export const QUIET_SECONDS = 30;
const RECONCILE_BATCH = 200;
const RETENTION_BATCH = 500;

/**
 * Keeps tasks moving and storage bounded, as scheduled jobs on the job-queue port (run once per schedule
 * across replicas on BullMQ, by a timer in the in-process queue):
 * - reconcile: a task whose job never reached the queue (the queue was down) is queued again; one whose
 *   job is gone (ended, failed for good after stalling, lost with an in-process queue on restart) is queued
 *   again, or FAILED once it has used its attempts — no task stays PENDING or PROCESSING without a job.
 *   Tasks accepted while the queue was down do not wait for it: they are queued as soon as it answers again
 *   (`dispatchNeverQueued`, in every process that reconnects; a task's job id makes a second dispatch of it
 *   a no-op), and so are those a process died before queueing (after the commit of the request that
 *   accepted them, before its queueing: when a process starts);
 * - retention: tasks finished more than TASK_RETENTION_DAYS ago are deleted with their results and files;
 * - purge-abandoned-blobs: file bytes written but never attached (a crash mid-export or mid-upload).
 */
@Injectable()
export class TaskMaintenance implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('TaskMaintenance');

  constructor(
    private readonly queue: JobQueue,
    private readonly tasks: TasksRepository,
    private readonly dispatcher: TaskDispatcher,
    private readonly endings: TaskEndings,
    private readonly storage: BlobStorage,
    private readonly transactions: Transactions,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.queue.registerProcessor(MAINTENANCE_QUEUE, (job) => this.run(job), { concurrency: 1 });
    this.queue.onReconnect(() => void this.dispatchNeverQueued());
  }

  async onApplicationBootstrap(): Promise<void> {
    for (const [name, everyMs] of Object.entries(MAINTENANCE_JOBS)) {
      await this.queue.schedule(MAINTENANCE_QUEUE, name, everyMs);
    }
    void this.dispatchNeverQueued();
  }

  private async run(job: QueuedJob<unknown>): Promise<void> {
    const name = job.name as MaintenanceJob;
    if (name === 'reconcile') await this.reconcile();
    else if (name === 'retention') await this.applyRetention();
    else if (name === 'purge-abandoned-blobs') await this.storage.purgeAbandoned();
  }

  /** One pass over the quiet unfinished tasks; resolves with how many were queued again or failed. */
  async reconcile(): Promise<{ requeued: number; failed: number }> {
    let requeued = 0;
    let failed = 0;
    for (const task of await this.tasks.quietUnfinished(QUIET_SECONDS, RECONCILE_BATCH)) {
      const outcome = await this.reconcileOne(task);
      if (outcome === 'requeued') requeued += 1;
      if (outcome === 'failed') failed += 1;
    }
    if (requeued + failed > 0) this.logger.log({ msg: 'tasks reconciled', requeued, failed });
    return { requeued, failed };
  }

  /** Queues the tasks accepted while the queue was down; resolves with how many reached it. */
  async dispatchNeverQueued(): Promise<number> {
    let queued = 0;
    try {
      for (const task of await this.tasks.neverQueued(RECONCILE_BATCH)) {
        if (await this.dispatcher.dispatch(task)) queued += 1;
      }
    } catch (error: unknown) {
      // The database may be away too: the reconcile schedule picks them up later.
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.warn({ msg: 'tasks accepted while the queue was down not queued yet', reason });
    }
    if (queued > 0) this.logger.log({ msg: 'tasks accepted while the queue was down queued', queued });
    return queued;
  }

  private async reconcileOne(task: Task): Promise<'alive' | 'requeued' | 'failed'> {
    if (task.jobId) {
      const state = await this.queue.jobState(TASK_QUEUES[task.type], task.jobId);
      if (state === 'waiting' || state === 'delayed' || state === 'active') return 'alive';
      if (task.attempts >= MAX_TASK_ATTEMPTS) {
        const done = await this.endings.fail(task.taskId, {
          code: FAILURE_CODES[task.type],
          args: { attempts: task.attempts },
        });
        return done ? 'failed' : 'alive';
      }
    }
    return (await this.dispatcher.dispatch(task)) ? 'requeued' : 'alive';
  }

  /** Deletes finished tasks past retention with their results and files; resolves with how many. */
  async applyRetention(): Promise<number> {
    let deleted = 0;
    for (;;) {
      const batch = await this.transactions.run(async (tx) => {
        const gone = await this.tasks.deleteFinishedBefore(
          tx,
          this.config.tasks.retentionDays,
          RETENTION_BATCH,
        );
        await this.storage.delete(tx, gone.blobKeys);
        return gone.tasks;
      });
      deleted += batch;
      if (batch < RETENTION_BATCH) break;
    }
    if (deleted > 0) this.logger.log({ msg: 'finished tasks past retention deleted', deleted });
    return deleted;
  }
}
