import type { Readable } from 'node:stream';
import { FILE_TYPES, FileType } from './file-type';

/** Largest file accepted, in bytes: 10 MB, read as 10 MiB. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** Longest attachment description, in characters. */
export const MAX_DESCRIPTION_LENGTH = 500;

/** What an upload may be: its largest size and its types (decided by the bytes, file-type.ts). */
export interface UploadPolicy {
  maxBytes: number;
  allowedTypes: readonly FileType[];
}

export const ATTACHMENT_UPLOADS: UploadPolicy = { maxBytes: MAX_FILE_BYTES, allowedTypes: FILE_TYPES };
export const AVATAR_UPLOADS: UploadPolicy = {
  maxBytes: MAX_FILE_BYTES,
  allowedTypes: ['image/png', 'image/jpeg'],
};

/** A file whose bytes are stored (pending in storage) and checked, not yet attached to anything. */
export interface ReceivedFile {
  /** The storage port's opaque key. */
  blobKey: string;
  /** The name it is stored and served under (file-name.ts). */
  fileName: string;
  /** The type its bytes are. */
  contentType: FileType;
  /** The type the client declared for it, when it declared one. */
  declaredType?: string;
  size: number;
  /** Hex sha256 of the bytes. */
  sha256: string;
}

/** The one entity a file belongs to: an order (an attachment) or a user (their avatar). */
export type FileOwner = { orderId: string } | { avatarOf: string };

/** A stored file with its metadata: an order's attachment or a user's avatar. */
export interface Attachment extends ReceivedFile {
  attachmentId: string;
  owner: FileOwner;
  description?: string;
  /** Who uploaded it (a user id). */
  uploadedBy: string;
  uploadedAt: Date;
}

/** A stored file with its bytes, streamed from storage. */
export interface AttachmentContent {
  attachment: Attachment;
  content: Readable;
}
