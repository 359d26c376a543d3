/**
 * Long-running tasks (docs/decisions/0038-tasks-row-is-the-truth.md): the model the
 * services, processors, repository and views share. Pure data and rules, no framework.
 */
export const TASK_TYPES = ['REPORT_GENERATION', 'CUSTOMER_EXPORT'] as const;
export type TaskType = (typeof TASK_TYPES)[number];

/** A task's states: PENDING, PROCESSING, COMPLETED, FAILED, and CANCELLED for a task its owner stopped. */
export const TASK_STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** States a task can still leave: it is queued or running. */
export const UNFINISHED_STATUSES: readonly TaskStatus[] = ['PENDING', 'PROCESSING'];

export function isUnfinished(status: TaskStatus): boolean {
  return UNFINISHED_STATUSES.includes(status);
}

/** The code a task of each type fails with once its attempts are used up. */
export const FAILURE_CODES = {
  REPORT_GENERATION: 'REPORT_GENERATION_FAILED',
  CUSTOMER_EXPORT: 'EXPORT_DATA_UNAVAILABLE',
} as const satisfies Record<TaskType, string>;

/** A stored failure: the code and the arguments of its text, never the text (localized when read). */
export interface TaskError {
  code: (typeof FAILURE_CODES)[TaskType];
  args: Record<string, string | number>;
}

export interface ReportParameters {
  /** Inclusive UTC calendar dates (YYYY-MM-DD) of the orders' creation. */
  dateFrom: string;
  dateTo: string;
}

export const EXPORT_FORMATS = ['CSV', 'JSON'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportParameters {
  customerId: string;
  format: ExportFormat;
}

export interface TaskParametersByType {
  REPORT_GENERATION: ReportParameters;
  CUSTOMER_EXPORT: ExportParameters;
}

/** Where a completed task's result is. */
export interface TaskResultRef {
  kind: 'report' | 'export';
  id: string;
}

export interface Task<T extends TaskType = TaskType> {
  taskId: string;
  type: T;
  /** Who started it: only they (or an admin) see it. */
  ownerId: string;
  status: TaskStatus;
  /** 0–100, never decreasing. */
  progress: number;
  parameters: TaskParametersByType[T];
  result?: TaskResultRef;
  error?: TaskError;
  /** Runs started so far (retries and take-overs included). */
  attempts: number;
  /** The job that carries it, when one reached the queue. */
  jobId?: string;
  /** The trace of the request that started it; its jobs continue it. */
  traceparent?: string;
  createdAt: Date;
  updatedAt?: Date;
  completedAt?: Date;
}

/** Runs of a task before it is failed for good: the queue's retries, and take-overs of stalled runs. */
export const MAX_TASK_ATTEMPTS = 3;

/**
 * The largest export file. A customer whose orders make more fails the export (EXPORT_DATA_UNAVAILABLE)
 * rather than filling storage; the OpenAPI document declares it as the download's size bound.
 */
export const MAX_EXPORT_BYTES = 1024 ** 3;

/** The longest report range, in days, both ends included. */
export const MAX_REPORT_DAYS = 366;

/** Days from `dateFrom` to `dateTo` (YYYY-MM-DD), both included. */
export function daysInRange(dateFrom: string, dateTo: string): number {
  return (
    Math.round((Date.parse(`${dateTo}T00:00:00Z`) - Date.parse(`${dateFrom}T00:00:00Z`)) / 86_400_000) + 1
  );
}

/** Progress of `done` out of `total` units as a whole percent, held below 100 until the task completes. */
export function progressOf(done: number, total: number): number {
  if (total <= 0) return 99;
  return Math.min(99, Math.floor((done * 100) / total));
}
