import { Injectable, Logger } from '@nestjs/common';
import { Transactions } from '../../platform/database/transactions';
import { JobQueue } from '../../platform/queue/job-queue';
import { runInTrace, startSpan } from '../../platform/tracing/trace-context';
import { MAX_TASK_ATTEMPTS, Task, TaskType } from './domain/task';
import { TasksRepository } from './persistence/tasks.repository';

/** One queue per task type, so each type has its own processor, concurrency and metrics. */
export const TASK_QUEUES: Record<TaskType, string> = {
  REPORT_GENERATION: 'report-generation',
  CUSTOMER_EXPORT: 'customer-export',
};

/** The job payload: the task row holds everything else. */
export interface TaskJob {
  taskId: string;
}

/** Base delay of the queue's exponential backoff between attempts of a task. */
const TASK_BACKOFF_MS = 1_000;

/**
 * Puts a task's job on its queue, after the task row is committed. Each dispatch is a new job id
 * (`<taskId>.<n>`), so a task whose job ended or vanished can be queued again; the job continues the trace
 * of the request that started the task. A queue that is down is not an error here: the task stays without
 * `queued_at`, and the reconciler dispatches it later.
 */
@Injectable()
export class TaskDispatcher {
  private readonly logger = new Logger('Tasks');

  constructor(
    private readonly queue: JobQueue,
    private readonly tasks: TasksRepository,
    private readonly transactions: Transactions,
  ) {}

  async dispatch(task: Task): Promise<boolean> {
    const jobId = nextJobId(task);
    try {
      await runInTrace(startSpan(task.traceparent), () =>
        this.queue.enqueue<TaskJob>(
          TASK_QUEUES[task.type],
          task.type,
          { taskId: task.taskId },
          {
            jobId,
            attempts: MAX_TASK_ATTEMPTS,
            backoffMs: TASK_BACKOFF_MS,
          },
        ),
      );
      // Its own transaction: the job is on the queue whatever becomes of the caller's, and a dispatch runs
      // after the commit of the request that accepted the task, when that request's transaction has ended.
      await this.transactions.runAlone((tx) => this.tasks.markQueued(tx, task.taskId, jobId));
      return true;
    } catch (error: unknown) {
      this.logger.warn({
        msg: 'task not queued yet; the reconciler will retry',
        taskId: task.taskId,
        reason: error instanceof Error ? error.message : String(error),
      });
      return false;
    }
  }
}

function nextJobId(task: Task): string {
  const previous = task.jobId ? Number(task.jobId.slice(task.jobId.lastIndexOf('.') + 1)) : 0;
  return `${task.taskId}.${previous + 1}`;
}
