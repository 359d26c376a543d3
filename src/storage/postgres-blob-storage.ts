import { Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { EntityManager } from 'typeorm';
import { PooledStatements } from '../database/pooled-statements';
import { BlobStorage, BlobTooLargeError, BlobWriteOptions, StoredBlob } from './blob-storage';

/** Bytes per chunk row: large enough for few round trips, small enough to stay off the heap's radar. */
export const CHUNK_BYTES = 256 * 1024;
/** Chunks read per statement when streaming a blob out. */
const CHUNKS_PER_READ = 4;
/** A blob written but not attached for this long belongs to a request that never finished. */
const ABANDONED_AFTER = '1 hour';

/**
 * The PostgreSQL adapter of the storage port: a `blobs` row per file and its bytes in fixed-size
 * `blob_chunks` rows (bytea), written one chunk per statement as the upload streams in and read back a few
 * chunks per statement. No transaction spans a write: an upload may be slow, and a transaction would hold
 * a pooled connection for all of it.
 */
@Injectable()
export class PostgresBlobStorage extends BlobStorage {
  constructor(private readonly statements: PooledStatements) {
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
      await this.statements.rowCount('INSERT INTO blob_chunks (blob_key, seq, data) VALUES ($1, $2, $3)', [
        key,
        seq++,
        data,
      ]);
    };
    await this.statements.rowCount('INSERT INTO blobs (blob_key) VALUES ($1)', [key]);
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
      await this.statements.rowCount(
        'UPDATE blobs SET size = $2, sha256 = $3, written_at = now() WHERE blob_key = $1',
        [key, size, sha256],
      );
      return { key, size, sha256 };
    } catch (error: unknown) {
      await this.statements.rowCount('DELETE FROM blobs WHERE blob_key = $1', [key]).catch(() => undefined);
      throw error;
    }
  }

  async attach(db: EntityManager, key: string): Promise<void> {
    const [, attached] = (await db.query(
      'UPDATE blobs SET attached = true WHERE blob_key = $1 AND written_at IS NOT NULL',
      [key],
    )) as [unknown[], number];
    if (attached !== 1) throw new Error(`blob ${key} is not a complete blob`);
  }

  async open(key: string): Promise<Readable | undefined> {
    const [blob] = await this.statements.rows(
      'SELECT 1 FROM blobs WHERE blob_key = $1 AND written_at IS NOT NULL',
      [key],
    );
    if (!blob) return undefined;
    const statements = this.statements;
    let next = 0;
    let done = false;
    // Each read() fetches the next few chunks; the stream asks again only when its consumer drained them.
    return new Readable({
      async read() {
        if (done) return;
        try {
          const rows = await statements.rows<{ data: Buffer }>(
            'SELECT data FROM blob_chunks WHERE blob_key = $1 AND seq >= $2 ORDER BY seq LIMIT $3',
            [key, next, CHUNKS_PER_READ],
          );
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

  async delete(db: EntityManager, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await db.query('DELETE FROM blobs WHERE blob_key = ANY($1::uuid[])', [keys]);
  }

  async purgeAbandoned(): Promise<number> {
    return this.statements.rowCount(
      `DELETE FROM blobs WHERE NOT attached AND created_at < now() - interval '${ABANDONED_AFTER}'`,
      [],
    );
  }
}
