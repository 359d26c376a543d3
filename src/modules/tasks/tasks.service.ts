import { Injectable } from '@nestjs/common';
import { type Caller, isAdmin } from '../../platform/auth/caller';
import { AppException } from '../../platform/problem/app-exception';
import { currentTrace } from '../../platform/tracing/trace-context';
import { Transactions } from '../../platform/database/transactions';
import { UsersService } from '../users/users.service';
import { ExportFormat, ReportParameters, Task, TaskType } from './domain/task';
import { TasksRepository } from './persistence/tasks.repository';
import { TaskDispatcher } from './task-dispatcher.service';
import { TaskEndings } from './task-endings.service';

/**
 * Starting, reading and cancelling tasks. A task row is committed before its job is queued (after the commit
 * of the request's transaction, which records its Idempotency-Key's outcome too), so a task the client was
 * told about (202) is never lost: if the queue is down, or the process dies between the commit and the
 * queueing, the task is queued later (TaskMaintenance: when the queue answers again, at a process's start,
 * and by the reconciler).
 */
@Injectable()
export class TasksService {
  constructor(
    private readonly tasks: TasksRepository,
    private readonly dispatcher: TaskDispatcher,
    private readonly endings: TaskEndings,
    private readonly users: UsersService,
    private readonly transactions: Transactions,
  ) {}

  /**
   * A report over orders created from `dateFrom` to `dateTo` (admin: the route's role check; the range is
   * checked with the request, at most MAX_REPORT_DAYS).
   */
  startReport(caller: Caller, { dateFrom, dateTo }: ReportParameters): Promise<Task> {
    return this.start(caller, 'REPORT_GENERATION', { dateFrom, dateTo });
  }

  /** An export of a customer's orders: the customer themself, or an admin for any known customer. */
  async startExport(caller: Caller, customerId: string, format: ExportFormat): Promise<Task> {
    if (customerId !== caller.userId) {
      if (!isAdmin(caller)) throw new AppException('ACCESS_DENIED');
      await this.users.get(customerId);
    }
    return this.start(caller, 'CUSTOMER_EXPORT', { customerId, format });
  }

  /** The task, if the caller may see it (its owner, or an admin); others get 404 as for an unknown task. */
  async get(caller: Caller, taskId: string): Promise<Task> {
    const task = await this.tasks.read(taskId);
    if (!task || (task.ownerId !== caller.userId && !isAdmin(caller))) {
      throw new AppException('TASK_NOT_FOUND', { args: { taskId } });
    }
    return task;
  }

  /** PENDING or PROCESSING → CANCELLED; a running processor stops at its next progress step. */
  async cancel(caller: Caller, taskId: string): Promise<Task> {
    const task = await this.get(caller, taskId);
    const cancelled = await this.endings.cancel(taskId, caller.userId);
    if (cancelled) return cancelled;
    // It ended before (or while) we looked: say in which state.
    const current = (await this.tasks.read(taskId)) ?? task;
    throw new AppException('INVALID_TASK_STATE', { args: { taskId, status: current.status } });
  }

  private async start<T extends TaskType>(
    caller: Caller,
    type: T,
    parameters: Task<T>['parameters'],
  ): Promise<Task> {
    const traceparent = currentTrace()?.traceparent;
    const task = await this.transactions.run((tx) =>
      this.tasks.insert(tx, type, caller.userId, parameters, traceparent),
    );
    await this.transactions.afterCommit(() => this.dispatcher.dispatch(task));
    return task;
  }
}
