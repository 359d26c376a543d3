import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Transactions } from '../database/transactions';
import type { TaskEventType } from '../events/domain/event-types';
import { EventRecorder } from '../events/event-recorder.service';
import { toJsonOutput } from '../http/json-output';
import { DEFAULT_LANGUAGE } from '../problem/language';
import { ProblemRenderer } from '../problem/problem-renderer';
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
  complete(
    taskId: string,
    writeResult: (db: EntityManager) => Promise<TaskResultRef>,
  ): Promise<Task | undefined> {
    return this.end('TASK_COMPLETED', undefined, async (db) =>
      this.tasks.complete(db, taskId, await writeResult(db)),
    );
  }

  /** FAILED for good with `error`; the service did it. */
  fail(taskId: string, error: TaskError): Promise<Task | undefined> {
    return this.end('TASK_FAILED', undefined, (db) => this.tasks.fail(db, taskId, error));
  }

  /** CANCELLED by `actorId`. */
  cancel(taskId: string, actorId: string): Promise<Task | undefined> {
    return this.end('TASK_CANCELLED', actorId, (db) => this.tasks.cancel(db, taskId));
  }

  private end(
    type: TaskEventType,
    actorId: string | undefined,
    move: (db: EntityManager) => Promise<Task | undefined>,
  ): Promise<Task | undefined> {
    return this.transactions.run(async (db) => {
      const task = await move(db);
      if (!task) return undefined;
      const data = toJsonOutput(taskBody(task, this.problems, DEFAULT_LANGUAGE)) as Record<string, unknown>;
      const customerId = 'customerId' in task.parameters ? task.parameters.customerId : undefined;
      await this.events.tasks(db, [{ type, taskId: task.taskId, customerId, actorId, data }]);
      return task;
    });
  }
}
