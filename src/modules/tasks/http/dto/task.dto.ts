import { ERROR_CODE_NAMES, type ErrorCode } from '../../../../platform/problem/error-codes';
import { NotAbove, WithinDaysOf } from '../../../../platform/validation/cross-field';
import { MAX_PROBLEM_TEXT_LENGTH } from '../../../../platform/problem/problem';
import {
  date,
  integer,
  nested,
  oneOf,
  patterned,
  RequestField,
  ResponseField,
  text,
  timestamp,
  uuid,
} from '../../../../platform/validation/fields';
import {
  EXPORT_FORMATS,
  MAX_REPORT_DAYS,
  type ExportFormat,
  TASK_STATUSES,
  TASK_TYPES,
  type TaskStatus,
  type TaskType,
} from '../../domain/task';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** `/api/v1/tasks/{taskId}` (task.view.ts). */
const STATUS_URL = patterned({
  pattern: new RegExp(`^/api/v1/tasks/${UUID}$`),
  max: '/api/v1/tasks/'.length + 36,
  format: 'task path',
  example: '/api/v1/tasks/7f1c0e7e-1f2a-4c53-9d0e-2b6f1b9f4a10',
});
/** `/api/v1/reports/{reportId}` or `/api/v1/exports/{exportId}` (task.view.ts). */
const RESULT_URL = patterned({
  pattern: new RegExp(`^/api/v1/(reports|exports)/${UUID}$`),
  max: '/api/v1/reports/'.length + 36,
  format: 'result path',
  example: '/api/v1/reports/4b0c8f9e-3d1a-4f57-8a43-0f5f3c1d2e6b',
});

/** Body of `POST /reports/generate`. */
export class GenerateReportRequest {
  @NotAbove('dateTo')
  @RequestField(date('2026-01-01'), { description: 'First UTC day of order creation, inclusive.' })
  dateFrom: string;

  @RequestField(date('2026-01-31'), {
    description: 'Last UTC day, inclusive; not before dateFrom, at most 366 days in all.',
  })
  @WithinDaysOf('dateFrom', MAX_REPORT_DAYS)
  dateTo: string;
}

/** Body of `POST /customers/{customerId}/export`. */
export class ExportCustomerDataRequest {
  @RequestField(oneOf(EXPORT_FORMATS, 'ExportFormat'))
  format: ExportFormat;
}

/** The 202 answer of a task start. */
export class TaskAcceptedResponse {
  @ResponseField(uuid())
  taskId: string;

  @ResponseField(oneOf(TASK_STATUSES, 'TaskStatus'), { description: 'Always PENDING.' })
  status: 'PENDING';

  @ResponseField(timestamp())
  createdAt: Date;

  @ResponseField(STATUS_URL, { description: 'Equals `Location`.' })
  statusUrl: string;
}

export class TaskErrorResponse {
  @ResponseField(oneOf(ERROR_CODE_NAMES, 'ErrorCode'))
  code: ErrorCode;

  @ResponseField(text({ min: 1, max: MAX_PROBLEM_TEXT_LENGTH, multiline: true }), {
    description: 'Human-readable text in the language of `Accept-Language`.',
  })
  detail: string;
}

/** A task in any status: only the fields that apply to its status are present. */
export class TaskResponse {
  @ResponseField(uuid())
  taskId: string;

  @ResponseField(oneOf(TASK_TYPES, 'TaskType'))
  type: TaskType;

  @ResponseField(oneOf(TASK_STATUSES, 'TaskStatus'))
  status: TaskStatus;

  @ResponseField(integer({ min: 0, max: 100 }), {
    optional: true,
    description: 'While PROCESSING; 100 when COMPLETED.',
  })
  progress?: number;

  @ResponseField(timestamp())
  createdAt: Date;

  @ResponseField(timestamp(), {
    optional: true,
    description: 'Present once the task changed (started, progressed, ended).',
  })
  updatedAt?: Date;

  @ResponseField(timestamp(), { optional: true, description: 'When COMPLETED or FAILED.' })
  completedAt?: Date;

  @ResponseField(RESULT_URL, { optional: true, description: 'Path of the result; only when COMPLETED.' })
  resultUrl?: string;

  @ResponseField(nested(TaskErrorResponse), { optional: true, description: 'Only when FAILED.' })
  error?: TaskErrorResponse;
}
