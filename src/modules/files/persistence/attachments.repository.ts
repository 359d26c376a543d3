import { Injectable } from '@nestjs/common';
import { Sql } from '../../../platform/database/sql';
import { read, replicaRead, write } from '../../../platform/database/sql-statement';
import type { Tx } from '../../../platform/database/transactions';
import type { Attachment, FileOwner, ReceivedFile } from '../domain/attachment';
import type { FileType } from '../domain/file-type';

/**
 * Every statement on `attachments`: services hold rules and transactions, this holds SQL. Writes take the
 * caller's transaction; reads go through `Sql`.
 */

interface AttachmentRow {
  attachment_id: string;
  order_id: string | null;
  avatar_of: string | null;
  file_name: string;
  declared_type: string | null;
  content_type: FileType;
  /** bigint: text from pg; a file is at most a few MiB, well inside a double. */
  size: string | number;
  sha256: string;
  description: string | null;
  blob_key: string;
  uploaded_by: string;
  /** A column's time stamp, or epoch milliseconds in JSON (`JSON_COLUMNS`). */
  uploaded_at: Date | number;
}

const COLUMNS_BUT_UPLOAD_TIME = `attachment_id, order_id, avatar_of, file_name, declared_type, content_type,
  size, sha256, description, blob_key, uploaded_by`;
const COLUMNS = `${COLUMNS_BUT_UPLOAD_TIME}, uploaded_at`;
/**
 * The columns for a row built into JSON: a time stamp's JSON text carries the offset of the session's time
 * zone (`-03:30:52` in some zones' past, which `Date` cannot parse), so the upload time travels as epoch
 * milliseconds.
 */
const JSON_COLUMNS = `${COLUMNS_BUT_UPLOAD_TIME}, extract(epoch FROM uploaded_at) * 1000 AS uploaded_at`;

function toAttachment(row: AttachmentRow): Attachment {
  const attachment: Attachment = {
    attachmentId: row.attachment_id,
    owner: row.order_id !== null ? { orderId: row.order_id } : { avatarOf: row.avatar_of as string },
    blobKey: row.blob_key,
    fileName: row.file_name,
    contentType: row.content_type,
    size: Number(row.size),
    sha256: row.sha256,
    uploadedBy: row.uploaded_by,
    uploadedAt: new Date(row.uploaded_at),
  };
  if (row.declared_type !== null) attachment.declaredType = row.declared_type;
  if (row.description !== null) attachment.description = row.description;
  return attachment;
}

const INSERT = write(
  `INSERT INTO attachments (order_id, avatar_of, file_name, declared_type, content_type, size, sha256,
     description, blob_key, uploaded_by)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
   RETURNING ${COLUMNS}`,
);
const ORDER_PAGE = replicaRead(
  `SELECT (SELECT count(*) FROM attachments WHERE order_id = $1)::bigint AS total,
     COALESCE((SELECT json_agg(p ORDER BY p.uploaded_at, p.attachment_id)
       FROM (SELECT ${JSON_COLUMNS} FROM attachments WHERE order_id = $1
             ORDER BY uploaded_at, attachment_id LIMIT $2 OFFSET $3) p), '[]'::json) AS attachments`,
);
const FIND_OF_ORDER = read(`SELECT ${COLUMNS} FROM attachments WHERE order_id = $1 AND attachment_id = $2`);
const DELETE_OF_ORDER = write(
  'DELETE FROM attachments WHERE order_id = $1 AND attachment_id = $2 RETURNING blob_key',
);
const DELETE_ALL_OF_ORDER = write('DELETE FROM attachments WHERE order_id = $1 RETURNING blob_key');
const FIND_AVATAR = read(`SELECT ${COLUMNS} FROM attachments WHERE avatar_of = $1`);
const DELETE_AVATAR = write('DELETE FROM attachments WHERE avatar_of = $1 RETURNING blob_key');
const LOCK_AVATAR = write("SELECT pg_advisory_xact_lock(hashtextextended('avatar:' || $1, 0))");

/** SQLSTATE of a foreign key violation: the owner (order or user) is gone. */
const FOREIGN_KEY_VIOLATION = '23503';

/** The insert failed because the order or user it names no longer exists. */
export function isMissingOwner(error: unknown): boolean {
  const failed = error as { code?: string; driverError?: { code?: string } } | null;
  return (failed?.driverError?.code ?? failed?.code) === FOREIGN_KEY_VIOLATION;
}

@Injectable()
export class AttachmentsRepository {
  constructor(private readonly sql: Sql) {}

  /** Stores the metadata of a received file for its owner. A vanished owner fails (see `isMissingOwner`). */
  async insert(
    tx: Tx,
    owner: FileOwner,
    file: ReceivedFile,
    meta: { description?: string; uploadedBy: string },
  ): Promise<Attachment> {
    const rows = await tx.rows<AttachmentRow>(INSERT, [
      'orderId' in owner ? owner.orderId : null,
      'avatarOf' in owner ? owner.avatarOf : null,
      file.fileName,
      file.declaredType ?? null,
      file.contentType,
      file.size,
      file.sha256,
      meta.description ?? null,
      file.blobKey,
      meta.uploadedBy,
    ]);
    return toAttachment(rows[0]);
  }

  /** A page of an order's attachments in upload order, and how many it has, in one statement. */
  async orderPage(
    orderId: string,
    paging: { limit: number; offset: number },
  ): Promise<{ attachments: Attachment[]; total: number }> {
    const [row] = await this.sql.rows<{ total: string; attachments: AttachmentRow[] }>(ORDER_PAGE, [
      orderId,
      paging.limit,
      paging.offset,
    ]);
    return { attachments: row.attachments.map(toAttachment), total: Number(row.total) };
  }

  async findOfOrder(orderId: string, attachmentId: string): Promise<Attachment | undefined> {
    const rows = await this.sql.rows<AttachmentRow>(FIND_OF_ORDER, [orderId, attachmentId]);
    return rows[0] ? toAttachment(rows[0]) : undefined;
  }

  /** Deletes one attachment of an order; its blob key, or undefined when the order has no such attachment. */
  async deleteOfOrder(tx: Tx, orderId: string, attachmentId: string): Promise<string | undefined> {
    const rows = await tx.rows<{ blob_key: string }>(DELETE_OF_ORDER, [orderId, attachmentId]);
    return rows[0]?.blob_key;
  }

  /** Deletes every attachment of an order; their blob keys. */
  async deleteAllOfOrder(tx: Tx, orderId: string): Promise<string[]> {
    const rows = await tx.rows<{ blob_key: string }>(DELETE_ALL_OF_ORDER, [orderId]);
    return rows.map((row) => row.blob_key);
  }

  async findAvatar(userId: string): Promise<Attachment | undefined> {
    const rows = await this.sql.rows<AttachmentRow>(FIND_AVATAR, [userId]);
    return rows[0] ? toAttachment(rows[0]) : undefined;
  }

  /** Deletes a user's avatar; its blob key, or undefined when there is none. */
  async deleteAvatar(tx: Tx, userId: string): Promise<string | undefined> {
    const rows = await tx.rows<{ blob_key: string }>(DELETE_AVATAR, [userId]);
    return rows[0]?.blob_key;
  }

  /**
   * Serializes changes of one user's avatar until the transaction ends: two uploads at once must not both
   * find no avatar and both insert one (the second would break the one-avatar constraint).
   */
  async lockAvatar(tx: Tx, userId: string): Promise<void> {
    await tx.rows(LOCK_AVATAR, [userId]);
  }
}
