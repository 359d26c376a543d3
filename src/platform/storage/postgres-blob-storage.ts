import { Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { Sql } from '../database/sql';
import { read, write } from '../database/sql-statement';
import { Transactions, type Tx } from '../database/transactions';
import { BlobStorage, BlobTooLargeError, BlobWriteOptions, StoredBlob } from './blob-storage';

/** Bytes per chunk row: large enough for few round trips, small enough to stay off the heap's radar. */
export const CHUNK_BYTES = 256 * 1024;
/** Chunks read per statement when streaming a blob out. */
const CHUNKS_PER_READ = 4;
/** A blob written but not attached for this long belongs to a request that never finished. */
const ABANDONED_AFTER = '1 hour';

const INSERT_BLOB = write('INSERT INTO blobs (blob_key) VALUES ($1)');
const INSERT_CHUNK = write('INSERT INTO blob_chunks (blob_key, seq, data) VALUES ($1, $2, $3)');
const COMPLETE_BLOB = write(
  'UPDATE blobs SET size = $2, sha256 = $3, written_at = now() WHERE blob_key = $1',
);
const DELETE_BLOB = write('DELETE FROM blobs WHERE blob_key = $1');
const ATTACH_BLOB = write('UPDATE blobs SET attached = true WHERE blob_key = $1 AND written_at IS NOT NULL');
const READ_WRITTEN_BLOB = read('SELECT 1 FROM blobs WHERE blob_key = $1 AND written_at IS NOT NULL');
const READ_CHUNKS = read(
  'SELECT data FROM blob_chunks WHERE blob_key = $1 AND seq >= $2 ORDER BY seq LIMIT $3',
);
const DELETE_BLOBS = write('DELETE FROM blobs WHERE blob_key = ANY($1::uuid[])');
const PURGE_ABANDONED = write(
  `DELETE FROM blobs WHERE NOT attached AND created_at < now() - interval '${ABANDONED_AFTER}'`,
);

/**
 * The PostgreSQL adapter of the storage port: a `blobs` row per file and its bytes in fixed-size
 * `blob_chunks` rows (bytea), written one chunk per statement as the upload streams in and read back a few
 * chunks per statement. No transaction spans a write: an upload may be slow, and a transaction would hold
 * a pooled connection for all of it. So each statement of a write is a transaction of its own (`runAlone`),
 * committed at once even inside a request's unit of work, whatever becomes of the request (a blob it never
 * attached stays pending and is purged).
 */
@Injectable()
export class PostgresBlobStorage extends BlobStorage {
  constructor(
    private readonly sql: Sql,
    private readonly transactions: Transactions,
  ) {
    super();
  }

  async write(source: Readable | AsyncIterable<Buffer>, options: BlobWriteOptions = {}): Promise<StoredBlob> {
    const key = randomUUID();
    const hash = createHash('sha256');
    let size = 0;
    let seq = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async (): Promise<void> => {
      if (pendingBytes === 0) return;
      const data = Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      const values = [key, seq++, data];
      await this.transactions.runAlone((tx) => tx.rowCount(INSERT_CHUNK, values));
    };
    await this.transactions.runAlone((tx) => tx.rowCount(INSERT_BLOB, [key]));
    try {
      for await (const piece of source) {
        const buffer = Buffer.isBuffer(piece) ? piece : Buffer.from(piece as Uint8Array);
        size += buffer.length;
        if (options.maxBytes !== undefined && size > options.maxBytes)
          throw new BlobTooLargeError(options.maxBytes);
        hash.update(buffer);
        pending.push(buffer);
        pendingBytes += buffer.length;
        if (pendingBytes >= CHUNK_BYTES) await flush();
      }
      await flush();
      const sha256 = hash.digest('hex');
      await this.transactions.runAlone((tx) => tx.rowCount(COMPLETE_BLOB, [key, size, sha256]));
      return { key, size, sha256 };
    } catch (error: unknown) {
      await this.transactions.runAlone((tx) => tx.rowCount(DELETE_BLOB, [key])).catch(() => undefined);
      throw error;
    }
  }

  async attach(tx: Tx, key: string): Promise<void> {
    const attached = await tx.rowCount(ATTACH_BLOB, [key]);
    if (attached !== 1) throw new Error(`blob ${key} is not a complete blob`);
  }

  async open(key: string): Promise<Readable | undefined> {
    const [blob] = await this.sql.rows(READ_WRITTEN_BLOB, [key]);
    if (!blob) return undefined;
    const sql = this.sql;
    let next = 0;
    let done = false;
    // Each read() fetches the next few chunks; the stream asks again only when its consumer drained them.
    return new Readable({
      async read() {
        if (done) return;
        try {
          const rows = await sql.rows<{ data: Buffer }>(READ_CHUNKS, [key, next, CHUNKS_PER_READ]);
          next += rows.length;
          if (rows.length < CHUNKS_PER_READ) done = true;
          for (const row of rows) this.push(row.data);
          if (done) this.push(null);
        } catch (error: unknown) {
          this.destroy(error instanceof Error ? error : new Error(String(error)));
        }
      },
    });
  }

  async delete(tx: Tx, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await tx.rowCount(DELETE_BLOBS, [keys]);
  }

  async purgeAbandoned(): Promise<number> {
    return this.transactions.run((tx) => tx.rowCount(PURGE_ABANDONED));
  }
}
