import { Readable } from 'node:stream';
import { readHead } from './stream-head';

async function collect(source: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of source) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const pieces = (data: Buffer, size: number) =>
  Readable.from(
    Array.from({ length: Math.ceil(data.length / size) }, (_, i) => data.subarray(i * size, (i + 1) * size)),
  );

describe('readHead', () => {
  const data = Buffer.from('%PDF-1.7 and then the rest of the document');

  it.each([1, 3, 8, 64])('reads the head across chunks of %i bytes and loses nothing', async (size) => {
    const { head, whole } = await readHead(pieces(data, size), 8);
    expect(head.toString()).toBe('%PDF-1.7');
    expect((await collect(whole)).toString()).toBe(data.toString());
  });

  it('returns a short head when the source is shorter', async () => {
    const { head, whole } = await readHead(pieces(Buffer.from('abc'), 2), 8);
    expect(head.toString()).toBe('abc');
    expect((await collect(whole)).toString()).toBe('abc');
  });

  it('handles an empty source', async () => {
    const { head, whole } = await readHead(Readable.from([]), 8);
    expect(head.length).toBe(0);
    expect((await collect(whole)).length).toBe(0);
  });

  it('ends the source when the reader stops early', async () => {
    const source = pieces(Buffer.alloc(1024), 16);
    const { whole } = await readHead(source, 8);
    for await (const _chunk of whole) break;
    await new Promise((resolve) => setImmediate(resolve));
    expect(source.destroyed).toBe(true);
  });
});
