import type { FastifyReply } from 'fastify';
import type { Language } from '../../../platform/problem/language';
import type { ProblemRenderer } from '../../../platform/problem/problem-renderer';
import type { StoredReport } from '../persistence/tasks.repository';
import type { Task } from '../domain/task';
import { taskBody, taskPath } from '../task-body';
import { isUnfinished } from '../domain/task';
import type { ReportResponse } from './dto/report.dto';
import type { TaskAcceptedResponse, TaskResponse } from './dto/task.dto';

/** Suggested polling interval while a task runs (the `Retry-After` of a running task). */
export const POLL_RETRY_AFTER_SECONDS = '2';

export { taskPath };

export function toTaskAccepted(task: Task): TaskAcceptedResponse {
  return {
    taskId: task.taskId,
    status: 'PENDING',
    createdAt: task.createdAt,
    statusUrl: taskPath(task.taskId),
  };
}

/** The task as its read serves it (task-body.ts). */
export function toTaskResponse(task: Task, problems: ProblemRenderer, lang: Language): TaskResponse {
  return taskBody(task, problems, lang);
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
