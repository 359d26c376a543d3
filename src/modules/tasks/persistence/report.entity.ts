import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The result of a REPORT_GENERATION task (migration 1763800011000). */
@Entity({ name: 'reports' })
export class ReportEntity {
  @PrimaryColumn({ name: 'report_id', type: 'uuid' })
  reportId: string;

  @Column({ name: 'task_id', type: 'uuid' })
  taskId: string;

  @Column({ name: 'owner_id', type: 'uuid' })
  ownerId: string;

  @Column({ type: 'jsonb' })
  body: Record<string, unknown>;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
