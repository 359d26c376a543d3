import type { Readable } from 'node:stream';
import type { Tx } from '../database/transactions';

/** What storage knows of a stored file: an opaque key, its size and its sha256 (hex). */
export interface StoredBlob {
  key: string;
  size: number;
  sha256: string;
}

export interface BlobWriteOptions {
  /** The write fails with BlobTooLargeError as soon as more bytes than this arrive. */
  maxBytes?: number;
}

/** The source passed `maxBytes`: the write stopped there and nothing was kept. */
export class BlobTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`more than ${maxBytes} bytes`);
    this.name = 'BlobTooLargeError';
  }
}

/**
 * The storage port for file bytes (attachments, avatars, export files). Its promises, which every adapter
 * keeps (PostgreSQL today; an S3-compatible store can be added without touching modules that use it):
 *
 * - `write(source)` consumes a stream and stores the bytes as they arrive, never holding the whole file in
 *   memory, and resolves with the key, size and sha256 once they are durable. If the source fails or passes
 *   `maxBytes`, it rejects (BlobTooLargeError for the limit) and nothing of the file is kept.
 * - A written blob is *pending* until `attach(tx, key)` runs in the transaction that stores the metadata
 *   referencing it (an attachment row, an export row). Pending blobs older than an hour are removed by
 *   `purgeAbandoned()`: a process that dies between the write and its metadata leaks nothing.
 * - `open(key)` streams the bytes (with backpressure), or resolves undefined for an unknown key.
 * - `delete(tx, keys)` runs in the caller's transaction: once it commits the bytes are gone, if it rolls
 *   back they stay (PostgreSQL deletes the rows in that transaction; an object store would record the keys in
 *   an outbox table in that transaction and delete the objects after commit).
 * - Keys are opaque strings; callers store them and never parse them.
 */
export abstract class BlobStorage {
  abstract write(source: Readable | AsyncIterable<Buffer>, options?: BlobWriteOptions): Promise<StoredBlob>;

  abstract attach(tx: Tx, key: string): Promise<void>;

  abstract open(key: string): Promise<Readable | undefined>;

  abstract delete(tx: Tx, keys: readonly string[]): Promise<void>;

  /** Removes blobs written but never attached; resolves with how many were removed. */
  abstract purgeAbandoned(): Promise<number>;
}
