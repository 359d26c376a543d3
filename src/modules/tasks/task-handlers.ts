import { Injectable } from '@nestjs/common';
import type { Tx } from '../../platform/database/transactions';
import type { Task, TaskResultRef, TaskType } from './domain/task';

/** What a handler of a task type gets for one run. */
export interface TaskRun<T extends TaskType = TaskType> {
  task: Task<T>;
  /**
   * Records progress (0–100, monotonic) at a safe point, where it may also stop: throws TaskCancelled
   * when the task was cancelled, JobInterrupted when the process is shutting down.
   */
  progress(percent: number): Promise<void>;
  /**
   * Writes the result and marks the task COMPLETED in one transaction; if the task was cancelled meanwhile
   * nothing is written (TaskCancelled).
   */
  complete(writeResult: (tx: Tx) => Promise<TaskResultRef>): Promise<void>;
}

export interface TaskHandler<T extends TaskType = TaskType> {
  readonly type: T;
  /** How many tasks of the type one worker process runs at once. */
  readonly concurrency: number;
  run(run: TaskRun<T>): Promise<void>;
}

/** The task was cancelled while it ran: it stops and writes nothing. */
export class TaskCancelled extends Error {
  constructor(readonly taskId: string) {
    super(`task ${taskId} was cancelled`);
    this.name = 'TaskCancelled';
  }
}

/**
 * The handler of each task type, looked up at every run: processors register themselves here, the runner
 * finds them here (and a test can wrap one to force a failure).
 */
@Injectable()
export class TaskHandlers {
  private readonly handlers = new Map<TaskType, TaskHandler>();

  register<T extends TaskType>(handler: TaskHandler<T>): void {
    this.handlers.set(handler.type, handler as unknown as TaskHandler);
  }

  get(type: TaskType): TaskHandler {
    const handler = this.handlers.get(type);
    if (!handler) throw new Error(`no handler for tasks of type ${type}`);
    return handler;
  }

  all(): TaskHandler[] {
    return [...this.handlers.values()];
  }
}
