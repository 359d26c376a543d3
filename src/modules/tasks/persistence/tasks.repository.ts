import { Injectable } from '@nestjs/common';
import { Sql } from '../../../platform/database/sql';
import { read, write } from '../../../platform/database/sql-statement';
import type { Tx } from '../../../platform/database/transactions';
import type { ReportBody } from '../domain/report';
import type {
  Task,
  TaskError,
  TaskParametersByType,
  TaskResultRef,
  TaskStatus,
  TaskType,
} from '../domain/task';

interface TaskRow {
  task_id: string;
  type: TaskType;
  owner_id: string;
  status: TaskStatus;
  progress: number;
  parameters: TaskParametersByType[TaskType];
  result_kind: TaskResultRef['kind'] | null;
  result_id: string | null;
  error_code: TaskError['code'] | null;
  error_args: TaskError['args'] | null;
  attempts: number;
  job_id: string | null;
  traceparent: string | null;
  created_at: Date;
  updated_at: Date | null;
  completed_at: Date | null;
}

function toTask(row: TaskRow): Task {
  const task: Task = {
    taskId: row.task_id,
    type: row.type,
    ownerId: row.owner_id,
    status: row.status,
    progress: row.progress,
    parameters: row.parameters,
    attempts: row.attempts,
    createdAt: row.created_at,
  };
  if (row.result_kind && row.result_id) task.result = { kind: row.result_kind, id: row.result_id };
  if (row.error_code) task.error = { code: row.error_code, args: row.error_args ?? {} };
  if (row.job_id) task.jobId = row.job_id;
  if (row.traceparent) task.traceparent = row.traceparent;
  if (row.updated_at) task.updatedAt = row.updated_at;
  if (row.completed_at) task.completedAt = row.completed_at;
  return task;
}

const UNFINISHED = "status IN ('PENDING', 'PROCESSING')";

const INSERT_TASK = write(
  'INSERT INTO tasks (type, owner_id, parameters, traceparent) VALUES ($1, $2, $3, $4) RETURNING *',
);
const READ_TASK = read('SELECT * FROM tasks WHERE task_id = $1');
const MARK_QUEUED = write('UPDATE tasks SET job_id = $2, queued_at = now() WHERE task_id = $1');
const START = write(
  `UPDATE tasks SET status = 'PROCESSING', attempts = attempts + 1, started_at = COALESCE(started_at, now()),
     updated_at = now()
   WHERE task_id = $1 AND ${UNFINISHED} RETURNING *`,
);
const PROGRESS = write(
  `UPDATE tasks SET progress = GREATEST(progress, $2), updated_at = now()
   WHERE task_id = $1 AND status = 'PROCESSING'`,
);
const COMPLETE = write(
  `UPDATE tasks SET status = 'COMPLETED', progress = 100, result_kind = $2, result_id = $3,
     completed_at = now(), updated_at = now()
   WHERE task_id = $1 AND status = 'PROCESSING' RETURNING *`,
);
const FAIL = write(
  `UPDATE tasks SET status = 'FAILED', error_code = $2, error_args = $3, completed_at = now(),
     updated_at = now()
   WHERE task_id = $1 AND ${UNFINISHED} RETURNING *`,
);
const CANCEL = write(
  `UPDATE tasks SET status = 'CANCELLED', updated_at = now() WHERE task_id = $1 AND ${UNFINISHED}
   RETURNING *`,
);
const NEVER_QUEUED = read(
  `SELECT * FROM tasks WHERE ${UNFINISHED} AND job_id IS NULL ORDER BY created_at LIMIT $1`,
);
const QUIET_UNFINISHED = read(
  `SELECT * FROM tasks WHERE ${UNFINISHED}
     AND GREATEST(created_at, queued_at, updated_at) < now() - make_interval(secs => $1)
   ORDER BY created_at LIMIT $2`,
);
const INSERT_REPORT = write(
  'INSERT INTO reports (task_id, owner_id, body) VALUES ($1, $2, $3) RETURNING report_id',
);
const READ_REPORT = read('SELECT * FROM reports WHERE report_id = $1');
const INSERT_EXPORT = write(
  `INSERT INTO exports (task_id, owner_id, customer_id, format, file_name, content_type, blob_key, size, sha256)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING export_id`,
);
const READ_EXPORT = read('SELECT * FROM exports WHERE export_id = $1');
const DELETE_FINISHED_BEFORE = write(
  `WITH expired AS (
     SELECT task_id FROM tasks
     WHERE status IN ('COMPLETED', 'FAILED', 'CANCELLED')
       AND COALESCE(completed_at, updated_at) < now() - make_interval(hours => 24 * $1)
     ORDER BY COALESCE(completed_at, updated_at) LIMIT $2
     FOR UPDATE SKIP LOCKED),
   files AS (SELECT e.blob_key FROM exports e JOIN expired USING (task_id)),
   gone AS (DELETE FROM tasks t USING expired WHERE t.task_id = expired.task_id RETURNING t.task_id)
   SELECT NULL AS blob_key FROM gone UNION ALL SELECT blob_key FROM files`,
);

/** The task an ending UPDATE … RETURNING moved, if it moved one. */
function ended(rows: TaskRow[]): Task | undefined {
  return rows[0] ? toTask(rows[0]) : undefined;
}

export interface StoredReport {
  reportId: string;
  ownerId: string;
  body: ReportBody;
  createdAt: Date;
}

export interface StoredExport {
  exportId: string;
  ownerId: string;
  customerId: string;
  fileName: string;
  contentType: string;
  blobKey: string;
  size: number;
  sha256: string;
}

/**
 * Every statement on `tasks`, `reports` and `exports`. State changes are single conditional updates, so a
 * cancel, a worker and the reconciler racing on one task cannot both win: each moves it only from the
 * states it expects, and the loser sees no row. Writes take the caller's transaction.
 */
@Injectable()
export class TasksRepository {
  constructor(private readonly sql: Sql) {}

  /** A new PENDING task. */
  async insert<T extends TaskType>(
    tx: Tx,
    type: T,
    ownerId: string,
    parameters: TaskParametersByType[T],
    traceparent: string | undefined,
  ): Promise<Task<T>> {
    const rows = await tx.rows<TaskRow>(INSERT_TASK, [
      type,
      ownerId,
      JSON.stringify(parameters),
      traceparent ?? null,
    ]);
    return toTask(rows[0]) as Task<T>;
  }

  async read(taskId: string): Promise<Task | undefined> {
    const rows = await this.sql.rows<TaskRow>(READ_TASK, [taskId]);
    return rows[0] ? toTask(rows[0]) : undefined;
  }

  /** The job carrying the task reached the queue. */
  async markQueued(tx: Tx, taskId: string, jobId: string): Promise<void> {
    await tx.rowCount(MARK_QUEUED, [taskId, jobId]);
  }

  /** A run begins: PENDING (or a PROCESSING run taken over) becomes PROCESSING; undefined if it ended meanwhile. */
  async start(tx: Tx, taskId: string): Promise<Task | undefined> {
    const rows = await tx.rows<TaskRow>(START, [taskId]);
    return rows[0] ? toTask(rows[0]) : undefined;
  }

  /** Records progress (never lowering it); false when the task is no longer PROCESSING (cancelled). */
  async progress(tx: Tx, taskId: string, percent: number): Promise<boolean> {
    return (await tx.rowCount(PROGRESS, [taskId, percent])) === 1;
  }

  /** COMPLETED with its result (TaskEndings); undefined when it is no longer PROCESSING. */
  async complete(tx: Tx, taskId: string, result: TaskResultRef): Promise<Task | undefined> {
    return ended(await tx.rows<TaskRow>(COMPLETE, [taskId, result.kind, result.id]));
  }

  /** FAILED with the stored error (TaskEndings); undefined when it had already ended (cancelled, completed). */
  async fail(tx: Tx, taskId: string, error: TaskError): Promise<Task | undefined> {
    return ended(await tx.rows<TaskRow>(FAIL, [taskId, error.code, JSON.stringify(error.args)]));
  }

  /** CANCELLED if it was still PENDING or PROCESSING (TaskEndings); undefined otherwise. */
  async cancel(tx: Tx, taskId: string): Promise<Task | undefined> {
    return ended(await tx.rows<TaskRow>(CANCEL, [taskId]));
  }

  /** Tasks whose job never reached the queue (it was down when they were accepted), oldest first. */
  async neverQueued(limit: number): Promise<Task[]> {
    const rows = await this.sql.rows<TaskRow>(NEVER_QUEUED, [limit]);
    return rows.map(toTask);
  }

  /** Unfinished tasks whose last sign of life (queued, started, progress) is older than `seconds`. */
  async quietUnfinished(seconds: number, limit: number): Promise<Task[]> {
    const rows = await this.sql.rows<TaskRow>(QUIET_UNFINISHED, [seconds, limit]);
    return rows.map(toTask);
  }

  async insertReport(tx: Tx, taskId: string, ownerId: string, body: ReportBody): Promise<string> {
    const rows = await tx.rows<{ report_id: string }>(INSERT_REPORT, [taskId, ownerId, JSON.stringify(body)]);
    return rows[0].report_id;
  }

  async readReport(reportId: string): Promise<StoredReport | undefined> {
    const rows = await this.sql.rows<{
      report_id: string;
      owner_id: string;
      body: ReportBody;
      created_at: Date;
    }>(READ_REPORT, [reportId]);
    const row = rows[0];
    return (
      row && { reportId: row.report_id, ownerId: row.owner_id, body: row.body, createdAt: row.created_at }
    );
  }

  async insertExport(
    tx: Tx,
    taskId: string,
    file: Omit<StoredExport, 'exportId'> & { format: string },
  ): Promise<string> {
    const rows = await tx.rows<{ export_id: string }>(INSERT_EXPORT, [
      taskId,
      file.ownerId,
      file.customerId,
      file.format,
      file.fileName,
      file.contentType,
      file.blobKey,
      file.size,
      file.sha256,
    ]);
    return rows[0].export_id;
  }

  async readExport(exportId: string): Promise<StoredExport | undefined> {
    const rows = await this.sql.rows<{
      export_id: string;
      owner_id: string;
      customer_id: string;
      file_name: string;
      content_type: string;
      blob_key: string;
      size: string;
      sha256: string;
    }>(READ_EXPORT, [exportId]);
    const row = rows[0];
    return (
      row && {
        exportId: row.export_id,
        ownerId: row.owner_id,
        customerId: row.customer_id,
        fileName: row.file_name,
        contentType: row.content_type,
        blobKey: row.blob_key,
        size: Number(row.size),
        sha256: row.sha256,
      }
    );
  }

  /**
   * Deletes up to `limit` tasks that finished more than `days` ago, with their results; resolves with the
   * blob keys of the deleted exports (to delete in the same transaction). Days of 24 hours: an interval in
   * days would follow the session time zone's daylight-saving shifts.
   */
  async deleteFinishedBefore(
    tx: Tx,
    days: number,
    limit: number,
  ): Promise<{ tasks: number; blobKeys: string[] }> {
    const rows = await tx.rows<{ blob_key: string | null }>(DELETE_FINISHED_BEFORE, [days, limit]);
    return {
      tasks: rows.filter((r) => r.blob_key === null).length,
      blobKeys: rows.flatMap((r) => (r.blob_key === null ? [] : [r.blob_key])),
    };
  }
}
