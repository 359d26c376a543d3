import { retryAfterMs } from './attempts.js';
import { callFailure, throwIfAborted } from './call-errors.js';
import { responseOf, type Send } from './resource-methods.js';
import type { Answer, Body, CallOptions, PathParameter } from './resource-types.js';
import type { Resources } from './generated/resources.js';
import { sleep } from './sleep.js';

/** A long-running task (a report, an export) as `GET /api/v1/tasks/{taskId}` answers it. */
export type Task = Answer<'getTask'>;

/** How `tasks.wait` polls. */
export interface WaitOptions {
  /** Stops waiting: the wait then throws an `AbortError` (the task goes on; cancel it with `tasks.cancel`). */
  signal?: AbortSignal;
  /**
   * The wait between polls in milliseconds; by default what the task's answer asks (`Retry-After`), else 2 s.
   */
  pollIntervalMs?: number;
}

const DEFAULT_POLL_INTERVAL_MS = 2_000;
const RUNNING: ReadonlySet<Task['status']> = new Set(['PENDING', 'PROCESSING']);

/** A task the client waited for ended FAILED or CANCELLED instead of COMPLETED: `task` says how. */
export class TaskFailedError extends Error {
  override readonly name = 'TaskFailedError';

  constructor(readonly task: Task) {
    super(
      task.status === 'FAILED'
        ? `task ${task.taskId} failed: ${task.error?.code ?? 'no code'}: ${task.error?.detail ?? ''}`
        : `task ${task.taskId} ended ${task.status}`,
    );
  }
}

/** The helpers over tasks: wait for one, or start a report or an export and wait for its result. */
export interface TaskWaits {
  tasks: {
    /**
     * Polls the task until it ends (COMPLETED, FAILED or CANCELLED) and resolves with it, waiting between polls
     * what the service asks (`Retry-After`).
     */
    wait(taskId: PathParameter<'getTask', 'taskId'>, options?: WaitOptions): Promise<Task>;
  };
  reports: {
    /**
     * Starts a sales report (`reports.generate`), waits for its task, and resolves with the report; throws a
     * `TaskFailedError` when the task fails or is cancelled.
     */
    generateAndWait(
      body: Body<'generateReport'>,
      options?: CallOptions<'generateReport'> & WaitOptions,
    ): Promise<Answer<'getReport'>>;
  };
  customers: {
    /**
     * Starts an export of a customer's orders (`customers.exportData`), waits for its task, and resolves with
     * the file (CSV or JSON, as asked); throws a `TaskFailedError` when the task fails or is cancelled.
     */
    exportDataAndWait(
      customerId: PathParameter<'exportCustomerData', 'customerId'>,
      body: Body<'exportCustomerData'>,
      options?: CallOptions<'exportCustomerData'> & WaitOptions,
    ): Promise<Answer<'downloadExport'>>;
  };
}

export function taskWaits(resources: Resources, send: Send): TaskWaits {
  const wait = async (taskId: string, options: WaitOptions = {}): Promise<Task> => {
    for (;;) {
      const task = await resources.tasks.get(taskId, { signal: options.signal });
      if (!RUNNING.has(task.status)) return task;
      const asked = retryAfterMs(responseOf(task)?.headers.get('Retry-After') ?? null);
      await sleep(options.pollIntervalMs ?? asked ?? DEFAULT_POLL_INTERVAL_MS, options.signal).catch(
        (error: unknown) => {
          throw callFailure(error, options.signal);
        },
      );
    }
  };
  /** The result a completed task points at (`resultUrl`), read as `parseAs` says. */
  const result = async (taskId: string, options: WaitOptions, parseAs: 'json' | 'blob') => {
    const task = await wait(taskId, options);
    if (task.status !== 'COMPLETED' || task.resultUrl === undefined) throw new TaskFailedError(task);
    throwIfAborted(options.signal);
    const answer = await send('get', task.resultUrl, { params: {}, signal: options.signal, parseAs });
    if (answer.error) throw answer.error;
    return answer.data;
  };
  return {
    tasks: { wait },
    reports: {
      generateAndWait: async (body, options = {}) => {
        const accepted = await resources.reports.generate(body, options);
        // The answer of the operation the task's resultUrl names (getReport).
        return (await result(accepted.taskId, options, 'json')) as Answer<'getReport'>;
      },
    },
    customers: {
      exportDataAndWait: async (customerId, body, options = {}) => {
        const accepted = await resources.customers.exportData(customerId, body, options);
        // The answer of the operation the task's resultUrl names (downloadExport).
        return (await result(accepted.taskId, options, 'blob')) as Answer<'downloadExport'>;
      },
    },
  };
}
