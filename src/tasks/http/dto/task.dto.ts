import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsISO8601, Matches } from 'class-validator';
import { ERROR_CODE_NAMES, type ErrorCode } from '../../../problem/error-codes';
import { NotAbove, WithinDaysOf } from '../../../validation/cross-field';
import {
  EXPORT_FORMATS,
  MAX_REPORT_DAYS,
  type ExportFormat,
  TASK_STATUSES,
  TASK_TYPES,
  type TaskStatus,
  type TaskType,
} from '../../domain/task';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_FORMAT = { context: { format: 'YYYY-MM-DD' } };
const TIMESTAMP = { format: 'date-time', example: '2026-01-31T12:00:00Z' } as const;

/** Body of `POST /reports/generate`. */
export class GenerateReportRequest {
  @ApiProperty({
    format: 'date',
    example: '2026-01-01',
    description: 'First UTC day of order creation, inclusive.',
  })
  @NotAbove('dateTo')
  @IsDefined()
  @Matches(DATE, DATE_FORMAT)
  @IsISO8601({ strict: true }, DATE_FORMAT)
  dateFrom: string;

  @ApiProperty({
    format: 'date',
    example: '2026-01-31',
    description: 'Last UTC day, inclusive; not before dateFrom, at most 366 days in all.',
  })
  @WithinDaysOf('dateFrom', MAX_REPORT_DAYS)
  @IsDefined()
  @Matches(DATE, DATE_FORMAT)
  @IsISO8601({ strict: true }, DATE_FORMAT)
  dateTo: string;
}

/** Body of `POST /customers/{customerId}/export`. */
export class ExportCustomerDataRequest {
  @ApiProperty({ enum: EXPORT_FORMATS, enumName: 'ExportFormat' })
  @IsDefined()
  @IsIn(EXPORT_FORMATS)
  format: ExportFormat;
}

/** The 202 answer of a task start (contract, Long-running operations 1). */
export class TaskAcceptedResponse {
  @ApiProperty({ format: 'uuid' })
  taskId: string;

  @ApiProperty({ enum: TASK_STATUSES, enumName: 'TaskStatus', description: 'Always PENDING.' })
  status: 'PENDING';

  @ApiProperty(TIMESTAMP)
  createdAt: Date;

  @ApiProperty({
    example: '/api/v1/tasks/7f1c0e7e-1f2a-4c53-9d0e-2b6f1b9f4a10',
    description: 'Equals `Location`.',
  })
  statusUrl: string;
}

export class TaskErrorResponse {
  @ApiProperty({ enum: ERROR_CODE_NAMES, enumName: 'ErrorCode' })
  code: ErrorCode;

  @ApiProperty({ description: 'Human-readable text in the language of `Accept-Language`.' })
  detail: string;
}

/** A task in any status: only the fields that apply to its status are present (contract, Long-running operations 3). */
export class TaskResponse {
  @ApiProperty({ format: 'uuid' })
  taskId: string;

  @ApiProperty({ enum: TASK_TYPES, enumName: 'TaskType' })
  type: TaskType;

  @ApiProperty({ enum: TASK_STATUSES, enumName: 'TaskStatus' })
  status: TaskStatus;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 100,
    description: 'While PROCESSING; 100 when COMPLETED.',
  })
  progress?: number;

  @ApiProperty(TIMESTAMP)
  createdAt: Date;

  @ApiPropertyOptional({
    ...TIMESTAMP,
    description: 'Present once the task changed (started, progressed, ended).',
  })
  updatedAt?: Date;

  @ApiPropertyOptional({ ...TIMESTAMP, description: 'When COMPLETED or FAILED.' })
  completedAt?: Date;

  @ApiPropertyOptional({
    example: '/api/v1/reports/4b0c8f9e-3d1a-4f57-8a43-0f5f3c1d2e6b',
    description: 'Path of the result; only when COMPLETED.',
  })
  resultUrl?: string;

  @ApiPropertyOptional({ type: TaskErrorResponse, description: 'Only when FAILED.' })
  error?: TaskErrorResponse;
}
