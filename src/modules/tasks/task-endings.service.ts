import { Injectable } from '@nestjs/common';
import { Transactions, type Tx } from '../../platform/database/transactions';
import type { TaskEventType } from '../events/domain/event-types';
import { EventRecorder } from '../events/event-recorder.service';
import { toJsonOutput } from '../../platform/http/json-output';
import { DEFAULT_LANGUAGE } from '../../platform/problem/language';
import { ProblemRenderer } from '../../platform/problem/problem-renderer';
import type { Task, TaskError, TaskResultRef } from './domain/task';
import { TasksRepository } from './persistence/tasks.repository';
import { taskBody } from './task-body';

/**
 * The one way a task ends (COMPLETED, FAILED, CANCELLED): the task's row moves and its event is recorded
 * in one transaction, with the task as `GET /api/v1/tasks/{taskId}` serves it as its data (a failure's
 * text in the default language). Each ending names its event type, so an ending cannot leave it out.
 * Resolves to the ended task, or undefined when it had ended before (nothing recorded).
 */
@Injectable()
export class TaskEndings {
  constructor(
    private readonly transactions: Transactions,
    private readonly tasks: TasksRepository,
    private readonly events: EventRecorder,
    private readonly problems: ProblemRenderer,
  ) {}

  /** COMPLETED with the result `writeResult` writes in the same transaction; the service did it. */
  complete(taskId: string, writeResult: (tx: Tx) => Promise<TaskResultRef>): Promise<Task | undefined> {
    return this.end('TASK_COMPLETED', undefined, async (tx) =>
      this.tasks.complete(tx, taskId, await writeResult(tx)),
    );
  }

  /** FAILED for good with `error`; the service did it. */
  fail(taskId: string, error: TaskError): Promise<Task | undefined> {
    return this.end('TASK_FAILED', undefined, (tx) => this.tasks.fail(tx, taskId, error));
  }

  /** CANCELLED by `actorId`. */
  cancel(taskId: string, actorId: string): Promise<Task | undefined> {
    return this.end('TASK_CANCELLED', actorId, (tx) => this.tasks.cancel(tx, taskId));
  }

  private end(
    type: TaskEventType,
    actorId: string | undefined,
    move: (tx: Tx) => Promise<Task | undefined>,
  ): Promise<Task | undefined> {
    return this.transactions.run(async (tx) => {
      const task = await move(tx);
      if (!task) return undefined;
      const data = toJsonOutput(taskBody(task, this.problems, DEFAULT_LANGUAGE)) as Record<string, unknown>;
      const customerId = 'customerId' in task.parameters ? task.parameters.customerId : undefined;
      await this.events.tasks(tx, [{ type, taskId: task.taskId, customerId, actorId, data }]);
      return task;
    });
  }
}
