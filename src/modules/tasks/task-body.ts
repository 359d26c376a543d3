import { AppException } from '../../platform/problem/app-exception';
import type { Language } from '../../platform/problem/language';
import type { ProblemRenderer } from '../../platform/problem/problem-renderer';
import type { Task, TaskError, TaskResultRef, TaskStatus, TaskType } from './domain/task';

export const taskPath = (taskId: string) => `/api/v1/tasks/${taskId}`;

const RESULT_PATHS: Record<TaskResultRef['kind'], string> = { report: 'reports', export: 'exports' };

/** A task as `GET /api/v1/tasks/{taskId}` serves it (the `TaskResponse` schema), before the output rules. */
export interface TaskBody {
  taskId: string;
  type: TaskType;
  status: TaskStatus;
  progress?: number;
  createdAt: Date;
  updatedAt?: Date;
  completedAt?: Date;
  resultUrl?: string;
  error?: { code: TaskError['code']; detail: string };
}

/**
 * The task with the fields its status has: `progress` while PROCESSING and as 100 when COMPLETED,
 * `completedAt` when COMPLETED or FAILED, `resultUrl` only when COMPLETED, `error` only when FAILED, its
 * `detail` rendered in `lang`. The one rendering of a task: its read, its cancel's answer, its events.
 */
export function taskBody(task: Task, problems: ProblemRenderer, lang: Language): TaskBody {
  const body: TaskBody = {
    taskId: task.taskId,
    type: task.type,
    status: task.status,
    createdAt: task.createdAt,
    updatedAt: task.updatedAt,
  };
  if (task.status === 'PROCESSING' || task.status === 'COMPLETED') body.progress = task.progress;
  if (task.status === 'COMPLETED' || task.status === 'FAILED') body.completedAt = task.completedAt;
  if (task.status === 'COMPLETED' && task.result) {
    body.resultUrl = `/api/v1/${RESULT_PATHS[task.result.kind]}/${task.result.id}`;
  }
  if (task.status === 'FAILED' && task.error) {
    const { code, args } = task.error;
    body.error = { code, detail: problems.render(new AppException(code, { args }), lang).detail };
  }
  return body;
}
