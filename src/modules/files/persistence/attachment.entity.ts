import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** The `attachments` table (migration 1763800012000): metadata of order attachments and avatars. */
@Entity({ name: 'attachments' })
export class AttachmentEntity {
  @PrimaryGeneratedColumn('uuid', { name: 'attachment_id' })
  attachmentId: string;

  @Column({ name: 'order_id', type: 'uuid', nullable: true })
  orderId: string | null;

  @Column({ name: 'avatar_of', type: 'uuid', nullable: true, unique: true })
  avatarOf: string | null;

  @Column({ name: 'file_name', type: 'text' })
  fileName: string;

  @Column({ name: 'declared_type', type: 'text', nullable: true })
  declaredType: string | null;

  @Column({ name: 'content_type', type: 'text' })
  contentType: string;

  @Column({ type: 'bigint' })
  size: string;

  @Column({ type: 'char', length: 64 })
  sha256: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ name: 'blob_key', type: 'text', unique: true })
  blobKey: string;

  @Column({ name: 'uploaded_by', type: 'uuid' })
  uploadedBy: string;

  @Column({ name: 'uploaded_at', type: 'timestamptz', default: () => 'now()' })
  uploadedAt: Date;
}
