import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { TaskStatus, TaskType } from '../domain/task';

/** A long-running task (migration 1763800011000); statements live in TasksRepository. */
@Entity({ name: 'tasks' })
export class TaskEntity {
  @PrimaryColumn({ name: 'task_id', type: 'uuid' })
  taskId: string;

  @Column({ type: 'text' })
  type: TaskType;

  @Column({ name: 'owner_id', type: 'uuid' })
  ownerId: string;

  @Column({ type: 'text' })
  status: TaskStatus;

  @Column({ type: 'smallint' })
  progress: number;

  @Column({ type: 'jsonb' })
  parameters: Record<string, unknown>;

  @Column({ name: 'result_kind', type: 'text', nullable: true })
  resultKind: string | null;

  @Column({ name: 'result_id', type: 'uuid', nullable: true })
  resultId: string | null;

  @Column({ name: 'error_code', type: 'text', nullable: true })
  errorCode: string | null;

  @Column({ name: 'error_args', type: 'jsonb', nullable: true })
  errorArgs: Record<string, unknown> | null;

  @Column({ type: 'smallint' })
  attempts: number;

  @Column({ name: 'job_id', type: 'text', nullable: true })
  jobId: string | null;

  @Column({ name: 'queued_at', type: 'timestamptz', nullable: true })
  queuedAt: Date | null;

  @Column({ type: 'text', nullable: true })
  traceparent: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', nullable: true })
  updatedAt: Date | null;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;
}
