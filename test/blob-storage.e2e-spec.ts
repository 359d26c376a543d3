import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { DataSource } from 'typeorm';
import { Transactions } from '../src/platform/database/transactions';
import { BlobStorage, BlobTooLargeError } from '../src/platform/storage/blob-storage';
import { CHUNK_BYTES } from '../src/platform/storage/postgres-blob-storage';
import { bootTestApp, TestApp } from './support/test-app';
import { runRedis } from './support/redis';

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

/** A source that yields `bytes` in pieces of `piece` bytes, like a network upload. */
function source(bytes: Buffer, piece = 64 * 1024): Readable {
  return Readable.from(
    (function* () {
      for (let offset = 0; offset < bytes.length; offset += piece)
        yield bytes.subarray(offset, offset + piece);
    })(),
  );
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('blob storage (PostgreSQL adapter of the storage port)', () => {
  let t: TestApp;
  let storage: BlobStorage;
  let db: DataSource;
  let transactions: Transactions;

  const rowsOf = async (key: string) => {
    const [{ blobs, chunks }] = (await db.query(
      `SELECT (SELECT count(*) FROM blobs WHERE blob_key = $1)::int AS blobs,
              (SELECT count(*) FROM blob_chunks WHERE blob_key = $1)::int AS chunks`,
      [key],
    )) as Array<{ blobs: number; chunks: number }>;
    return { blobs, chunks };
  };

  /** The database's clock now: blobs made from then on are this test's (other suites' files stay out). */
  const clock = async () => ((await db.query('SELECT clock_timestamp() AS at')) as Array<{ at: Date }>)[0].at;
  /** Blobs made since `since`, with their chunks (a chunk cannot outlive its blob). */
  const blobsSince = async (since: Date) =>
    (
      (await db.query('SELECT count(*)::int AS n FROM blobs WHERE created_at >= $1', [since])) as Array<{
        n: number;
      }>
    )[0].n;

  beforeAll(async () => {
    // No job processors here: a job an earlier suite left in Redis (an export) would write chunks of its
    // own while these tests count them. Without Redis the in-process queue holds only this app's jobs.
    t = await bootTestApp(runRedis ? { APP_ROLE: 'api' } : {});
    storage = t.app.get(BlobStorage);
    db = t.app.get(DataSource);
    transactions = t.app.get(Transactions);
  });
  afterAll(() => t.close());

  it.each([
    ['empty', 0],
    ['one byte', 1],
    ['exactly one chunk', CHUNK_BYTES],
    ['several chunks and a partial one', 3 * CHUNK_BYTES + 12_345],
  ])('stores and streams back %s byte for byte, with size and sha256', async (_name, length) => {
    const bytes = randomBytes(length);
    const stored = await storage.write(source(bytes));
    expect(stored).toEqual({ key: expect.any(String), size: length, sha256: sha256(bytes) });
    const stream = await storage.open(stored.key);
    expect(stream).toBeDefined();
    expect(sha256(await readAll(stream as Readable))).toBe(sha256(bytes));
    expect((await rowsOf(stored.key)).chunks).toBe(Math.ceil(length / CHUNK_BYTES));
  });

  it('stops at maxBytes + 1 and keeps nothing', async () => {
    const bytes = randomBytes(CHUNK_BYTES * 2);
    let consumed = 0;
    // A plain async iterable: no stream reads ahead of what the storage asks for.
    const counted = (async function* () {
      for (let offset = 0; offset < bytes.length; offset += 64 * 1024) {
        consumed += 64 * 1024;
        yield bytes.subarray(offset, offset + 64 * 1024);
      }
    })();
    const since = await clock();
    await expect(storage.write(counted, { maxBytes: CHUNK_BYTES })).rejects.toBeInstanceOf(BlobTooLargeError);
    // It read one piece past the limit, not the whole source.
    expect(consumed).toBeLessThanOrEqual(CHUNK_BYTES + 64 * 1024);
    expect(await blobsSince(since)).toBe(0);
  });

  it('accepts exactly maxBytes', async () => {
    const bytes = randomBytes(1000);
    expect((await storage.write(source(bytes), { maxBytes: 1000 })).size).toBe(1000);
  });

  it('keeps nothing when the source fails midway', async () => {
    const failing = Readable.from(
      (async function* () {
        yield randomBytes(CHUNK_BYTES + 1);
        throw new Error('connection reset');
      })(),
    );
    const since = await clock();
    await expect(storage.write(failing)).rejects.toThrow('connection reset');
    expect(await blobsSince(since)).toBe(0);
  });

  it('answers undefined for an unknown key', async () => {
    expect(await storage.open('00000000-0000-4000-8000-000000000000')).toBeUndefined();
  });

  it('deletes in the caller transaction: a rollback keeps the bytes, a commit removes them', async () => {
    const stored = await storage.write(source(randomBytes(10)));
    await transactions.run((tx) => storage.attach(tx, stored.key));
    await expect(
      transactions.run(async (tx) => {
        await storage.delete(tx, [stored.key]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await rowsOf(stored.key)).toEqual({ blobs: 1, chunks: 1 });
    await transactions.run((tx) => storage.delete(tx, [stored.key]));
    expect(await rowsOf(stored.key)).toEqual({ blobs: 0, chunks: 0 });
  });

  it('purges blobs never attached after an hour, and only those', async () => {
    const abandoned = await storage.write(source(randomBytes(10)));
    const attached = await storage.write(source(randomBytes(10)));
    await transactions.run((tx) => storage.attach(tx, attached.key));
    await db.query(
      "UPDATE blobs SET created_at = now() - interval '2 hours' WHERE blob_key = ANY($1::uuid[])",
      [[abandoned.key, attached.key]],
    );
    expect(await storage.purgeAbandoned()).toBeGreaterThanOrEqual(1);
    expect(await rowsOf(abandoned.key)).toEqual({ blobs: 0, chunks: 0 });
    expect((await rowsOf(attached.key)).blobs).toBe(1);
  });

  it('refuses to attach a blob that does not exist', async () => {
    await expect(
      transactions.run((tx) => storage.attach(tx, '00000000-0000-4000-8000-000000000001')),
    ).rejects.toThrow();
  });
});
