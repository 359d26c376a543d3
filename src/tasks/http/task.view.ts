import type { FastifyReply } from 'fastify';
import { AppException } from '../../problem/app-exception';
import type { Language } from '../../problem/language';
import type { ProblemRenderer } from '../../problem/problem-renderer';
import type { StoredReport } from '../persistence/tasks.repository';
import type { Task, TaskResultRef } from '../domain/task';
import { isUnfinished } from '../domain/task';
import type { ReportResponse } from './dto/report.dto';
import type { TaskAcceptedResponse, TaskResponse } from './dto/task.dto';

/** Suggested polling interval while a task runs (the `Retry-After` of a running task). */
export const POLL_RETRY_AFTER_SECONDS = '2';

export const taskPath = (taskId: string) => `/api/v1/tasks/${taskId}`;

const RESULT_PATHS: Record<TaskResultRef['kind'], string> = { report: 'reports', export: 'exports' };

export function toTaskAccepted(task: Task): TaskAcceptedResponse {
  return {
    taskId: task.taskId,
    status: 'PENDING',
    createdAt: task.createdAt,
    statusUrl: taskPath(task.taskId),
  };
}

/**
 * The task with the fields its status has: `progress` while
 * PROCESSING and as 100 when COMPLETED, `completedAt` when COMPLETED or FAILED, `resultUrl` only when
 * COMPLETED, `error` only when FAILED, its `detail` rendered now in the caller's language.
 */
export function toTaskResponse(task: Task, problems: ProblemRenderer, lang: Language): TaskResponse {
  const response: TaskResponse = {
    taskId: task.taskId,
    type: task.type,
    status: task.status,
    createdAt: task.createdAt,
    updatedAt: task.updatedAt,
  };
  if (task.status === 'PROCESSING' || task.status === 'COMPLETED') response.progress = task.progress;
  if (task.status === 'COMPLETED' || task.status === 'FAILED') response.completedAt = task.completedAt;
  if (task.status === 'COMPLETED' && task.result) {
    response.resultUrl = `/api/v1/${RESULT_PATHS[task.result.kind]}/${task.result.id}`;
  }
  if (task.status === 'FAILED' && task.error) {
    const { code, args } = task.error;
    response.error = { code, detail: problems.render(new AppException(code, { args }), lang).detail };
  }
  return response;
}

/** A task answer: the body, and `Retry-After` while it is still running. */
export function sendTask(
  reply: FastifyReply,
  task: Task,
  problems: ProblemRenderer,
  lang: Language,
): TaskResponse {
  if (isUnfinished(task.status)) void reply.header('retry-after', POLL_RETRY_AFTER_SECONDS);
  return toTaskResponse(task, problems, lang);
}

export function toReportResponse(report: StoredReport): ReportResponse {
  return { reportId: report.reportId, generatedAt: report.createdAt, ...report.body };
}
