import { createHash, randomBytes } from 'node:crypto';

/** One part of a `multipart/form-data` body, written byte for byte as given. */
export interface FormPart {
  name: string;
  /** The part's bytes (a string is UTF-8). */
  data: Buffer | string;
  /** `filename="…"` as written (raw UTF-8; `"` and `\` escaped with a backslash). Makes it a file part. */
  filename?: string;
  /** `filename*=UTF-8''…` (RFC 8187): any name, control characters included. */
  filenameStar?: string;
  contentType?: string;
}

export const MiB = 1024 * 1024;

export interface MultipartBody {
  payload: Buffer;
  contentType: string;
}

const quoted = (value: string) => value.replace(/[\\"]/g, (c) => `\\${c}`);

function partHead(part: FormPart): string {
  let disposition = `form-data; name="${quoted(part.name)}"`;
  if (part.filename !== undefined) disposition += `; filename="${quoted(part.filename)}"`;
  if (part.filenameStar !== undefined) {
    disposition += `; filename*=UTF-8''${encodeURIComponent(part.filenameStar)}`;
  }
  const type = part.contentType !== undefined ? `\r\nContent-Type: ${part.contentType}` : '';
  return `Content-Disposition: ${disposition}${type}\r\n\r\n`;
}

/** The bytes of a multipart body of `parts` (a fresh boundary), and its Content-Type. */
export function multipartBody(
  parts: FormPart[],
  boundary = `os-${randomBytes(12).toString('hex')}`,
): MultipartBody {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(
      Buffer.from(`--${boundary}\r\n${partHead(part)}`),
      Buffer.from(part.data),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The head and tail of a body whose one file part is streamed in between (for real-HTTP tests). */
export function multipartEnvelope(
  part: Omit<FormPart, 'data'>,
  boundary = `os-${randomBytes(12).toString('hex')}`,
): { head: Buffer; tail: Buffer; contentType: string } {
  return {
    head: Buffer.from(`--${boundary}\r\n${partHead({ ...part, data: '' })}`),
    tail: Buffer.from(`\r\n--${boundary}--\r\n`),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

const SIGNATURES = {
  pdf: Buffer.from('%PDF-1.7\n'),
  png: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  jpeg: Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
  /** An ELF executable. */
  elf: Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00]),
  /** A Windows executable. */
  mz: Buffer.from('MZ\x90\x00\x03\x00\x00\x00', 'latin1'),
};
export type SampleKind = keyof typeof SIGNATURES;

/** `size` bytes that start like a file of `kind` (random after the signature). */
export function sampleFile(kind: SampleKind, size = 4096): Buffer {
  const signature = SIGNATURES[kind];
  return Buffer.concat([signature, randomBytes(Math.max(0, size - signature.length))]).subarray(0, size);
}

export const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
