/** The first bytes of a stream, and the whole stream (those bytes included) to read on from there. */
export interface StreamHead {
  head: Buffer;
  /** Every byte of the source, once; ending it early (break, throw) ends the source too. */
  whole: AsyncIterable<Buffer>;
}

/**
 * Reads from `source` until it has `bytes` bytes (or the source ends), without losing them: the type of
 * an upload is decided on its first bytes, then the same bytes go on to storage. At most one chunk past
 * `bytes` is read ahead, so backpressure still holds for the rest. A caller that never reads `whole`
 * releases the source itself.
 */
export async function readHead(
  source: AsyncIterable<Buffer | Uint8Array>,
  bytes: number,
): Promise<StreamHead> {
  const iterator = source[Symbol.asyncIterator]();
  const chunks: Buffer[] = [];
  let length = 0;
  let ended = false;
  while (length < bytes) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    const chunk = asBuffer(next.value);
    chunks.push(chunk);
    length += chunk.length;
  }
  const read = Buffer.concat(chunks, length);
  async function* whole(): AsyncGenerator<Buffer> {
    try {
      if (read.length > 0) yield read;
      while (!ended) {
        const next = await iterator.next();
        if (next.done) ended = true;
        else yield asBuffer(next.value);
      }
    } finally {
      // The reader stopped early: end the source too.
      if (!ended) await iterator.return?.();
    }
  }
  return { head: read.subarray(0, bytes), whole: whole() };
}

/** A view of the bytes as a Buffer, without copying them. */
function asBuffer(bytes: Buffer | Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
