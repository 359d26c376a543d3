import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The result of a CUSTOMER_EXPORT task: a file in blob storage (migration 1763800011000). */
@Entity({ name: 'exports' })
export class ExportEntity {
  @PrimaryColumn({ name: 'export_id', type: 'uuid' })
  exportId: string;

  @Column({ name: 'task_id', type: 'uuid' })
  taskId: string;

  @Column({ name: 'owner_id', type: 'uuid' })
  ownerId: string;

  @Column({ name: 'customer_id', type: 'uuid' })
  customerId: string;

  @Column({ type: 'text' })
  format: string;

  @Column({ name: 'file_name', type: 'text' })
  fileName: string;

  @Column({ name: 'content_type', type: 'text' })
  contentType: string;

  @Column({ name: 'blob_key', type: 'text' })
  blobKey: string;

  @Column({ type: 'bigint' })
  size: string;

  @Column({ type: 'char', length: 64 })
  sha256: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
