import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ReadYourWrites } from '../../platform/database/read-your-writes';
import { Transactions } from '../../platform/database/transactions';
import { MetricsService } from '../../platform/metrics/metrics.service';
import { JobInterrupted, JobQueue, QueuedJob } from '../../platform/queue/job-queue';
import { FAILURE_CODES, TaskType } from './domain/task';
import { TasksRepository } from './persistence/tasks.repository';
import { TASK_QUEUES, TaskJob } from './task-dispatcher.service';
import { TaskEndings } from './task-endings.service';
import { TaskCancelled, TaskHandlers, TaskRun } from './task-handlers';

/**
 * The life of a task around its handler, the same for every type: a run starts (PENDING, or a stalled
 * PROCESSING run taken over, → PROCESSING), the handler reports progress at safe points where it may be
 * stopped (cancelled: it ends and writes nothing; shutdown: the job goes back to the queue) and commits its
 * result together with COMPLETED; a failure is retried by the queue, and when the attempts are used up
 * the task is FAILED with its type's code (text localized when read). One processor per task type, on
 * the job-queue port, so the same code runs on BullMQ and in-process, in the `worker` and `all` roles.
 * A run is a read session of its own (ReadYourWrites): the claim it commits first comes after everything its
 * requester wrote before asking, so its replica reads (a report's, an export's) wait until a replica has it.
 */
@Injectable()
export class TaskRunner implements OnModuleInit {
  private readonly logger = new Logger('Tasks');

  constructor(
    private readonly queue: JobQueue,
    private readonly handlers: TaskHandlers,
    private readonly tasks: TasksRepository,
    private readonly endings: TaskEndings,
    private readonly metrics: MetricsService,
    private readonly transactions: Transactions,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  onModuleInit(): void {
    for (const handler of this.handlers.all()) {
      const queueName = TASK_QUEUES[handler.type];
      this.metrics.trackQueue(queueName);
      this.queue.registerProcessor<TaskJob>(
        queueName,
        (job) => this.readYourWrites.session(undefined, () => this.run(handler.type, job)),
        {
          concurrency: handler.concurrency,
          onExhausted: (job, error) => this.exhausted(handler.type, job.data.taskId, job.attempt, error),
        },
      );
    }
  }

  private async run(type: TaskType, job: QueuedJob<TaskJob>): Promise<void> {
    // The run's claim on the task, committed at once (its own transaction): a cancel and the reconciler see
    // it PROCESSING whatever the run does next.
    const task = await this.transactions.runAlone((tx) => this.tasks.start(tx, job.data.taskId));
    if (!task) return; // Cancelled or ended before this run began: nothing to do.
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    const run: TaskRun = {
      task,
      progress: async (percent) => {
        if (job.signal.aborted) throw new JobInterrupted();
        // Committed at once (its own transaction): pollers see it, and it is the run's sign of life the
        // reconciler looks for, while the run goes on.
        const recorded = await this.transactions.runAlone((tx) =>
          this.tasks.progress(tx, task.taskId, percent),
        );
        if (!recorded) throw new TaskCancelled(task.taskId);
      },
      complete: async (writeResult) => {
        if (!(await this.endings.complete(task.taskId, writeResult))) throw new TaskCancelled(task.taskId);
      },
    };
    try {
      await this.handlers.get(type).run(run);
      this.metrics.observeJob(type, 'completed', seconds());
    } catch (error: unknown) {
      if (error instanceof TaskCancelled) {
        this.metrics.observeJob(type, 'cancelled', seconds());
        this.logger.log({ msg: 'task stopped: cancelled', taskId: task.taskId });
        return;
      }
      this.metrics.observeJob(type, error instanceof JobInterrupted ? 'interrupted' : 'error', seconds());
      if (!(error instanceof JobInterrupted)) {
        this.logger.warn({
          msg: 'task run failed',
          taskId: task.taskId,
          attempt: job.attempt,
          reason: error instanceof Error ? error.message : String(error),
        });
      }
      throw error;
    }
  }

  private async exhausted(type: TaskType, taskId: string, attempts: number, error: Error): Promise<void> {
    this.metrics.countJobFailure(type);
    this.logger.error({ msg: 'task failed for good', taskId, attempts, reason: error.message }, undefined);
    await this.endings.fail(taskId, { code: FAILURE_CODES[type], args: { attempts } });
  }
}
