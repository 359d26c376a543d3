import multipart from '@fastify/multipart';
import { applyDecorators } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { ClassConstructor } from 'class-transformer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { AppException, ViolationInput } from '../problem/app-exception';
import { formatByteSize } from '../problem/byte-size';
import { Consumes, JSON_MEDIA_TYPE, unsupportedMediaType } from './content-type.decorator';
import { ValidationPipe } from './validation.pipe';

export const MULTIPART_FORM_DATA = 'multipart/form-data';

/** Most parts one upload may have: its file, its text parts and a few unknown ones worth naming. */
const MAX_PARTS = 10;
/**
 * A text part is cut after this many bytes (busboy discards the rest). 64 KiB hold at least 16,384
 * characters of any script, so a cut value still fails every MaxLength of this API's forms.
 */
const MAX_TEXT_PART_BYTES = 64 * 1024;
/** Headers of one part: Content-Disposition and Content-Type are all a form part needs. */
const MAX_PART_HEADERS = 10;
const MAX_PART_HEADER_BYTES = 16 * 1024;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads a `multipart/form-data` body with `readMultipartForm` (set by `@MultipartBody()`). */
    multipartForm?: true;
  }
}

/**
 * `multipart/form-data` bodies (uploads), beside the JSON ones (json-body.ts). @fastify/multipart only
 * marks such a request; nothing of its body is read before the handler streams it with
 * `readMultipartForm`, after the guards have authenticated the caller. Routes declare that they take it
 * with `@MultipartBody()`; on any other route a multipart body is 415 UNSUPPORTED_MEDIA_TYPE, as form
 * bodies always were. A multipart Content-Type without a boundary is refused before the handler runs.
 *
 * An upload may be answered before its body has arrived (413 as the file passes its limit, 415 on its
 * first bytes, 403/404 before a byte is read). Such a response carries `Connection: close`, and what the
 * client still sends is read and dropped until the connection closes, as Fastify does for its own 413:
 * the client sees the answer instead of a stalled upload, and nothing is buffered.
 */
export async function registerMultipartBodies(fastify: FastifyInstance): Promise<void> {
  // Busboy's own per-file limit is set per request (readMultipartForm), where the file's limit is known.
  await fastify.register(multipart, { limits: { parts: MAX_PARTS } });
  fastify.addHook('preValidation', (request, _reply, done) => {
    if (request.is404 || !request.isMultipart()) return done();
    if (request.routeOptions.config.multipartForm !== true)
      return done(unsupportedMediaType([JSON_MEDIA_TYPE]));
    if (!/;\s*boundary=/i.test(request.headers['content-type'] ?? '')) return done(invalidMultipart());
    done();
  });
  fastify.addHook('onSend', (request, reply, payload, done) => {
    // `complete` is false while the body is still arriving (light-my-request, for app.inject, leaves it unset).
    if (request.raw.complete === false) {
      void reply.header('connection', 'close');
      request.raw.unpipe();
      request.raw.resume();
      lingerBeforeClosing(request.raw.socket);
    }
    done(null, payload);
  });
}

/**
 * How long a connection answered before its body ended goes on reading (and dropping) what the client
 * still sends, after the answer and our end of the connection are written, before it is closed.
 */
export const LINGER_MS = 5_000;

/**
 * A lingering close (nginx's `lingering_close`, Apache's): Node closes a `Connection: close` socket as soon
 * as the answer is written, and closing a socket that still has unread data makes the kernel send a reset,
 * which can reach the client before it has read the answer: the client then sees a reset instead of its
 * 413. Here the socket only ends its side (FIN after the answer) and keeps draining until the client closes
 * its side (it has the answer: the FIN came after it) or LINGER_MS pass.
 */
function lingerBeforeClosing(socket: Socket): void {
  socket.destroySoon = function lingeringDestroySoon(this: Socket): void {
    if (this.writable) this.end();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
  };
}

/**
 * The route's body is `multipart/form-data` (others are 415 UNSUPPORTED_MEDIA_TYPE), read by the handler
 * with `readMultipartForm`. Declare the parts in OpenAPI with `ApiMultipartFile`.
 */
export function MultipartBody(): MethodDecorator {
  return applyDecorators(Consumes(MULTIPART_FORM_DATA), RouteConfig({ multipartForm: true }));
}

/** A file part as the handler receives it: a stream, read once, never buffered whole. */
export interface MultipartFilePart {
  /** The part's `filename` (busboy keeps its last path segment); may be empty. */
  fileName: string;
  /** The part's Content-Type, lower case (RFC 7578: `text/plain` when the part has none). */
  contentType: string;
  stream: Readable;
}

export interface MultipartFormSpec<F extends object> {
  /** The one file part: its name, and the most bytes it may hold (the receiver enforces it while streaming). */
  file: { name: string; maxBytes: number };
  /** The class of the text parts, validated like a JSON body DTO: an unknown part is UNKNOWN_FIELD. */
  fields: ClassConstructor<F>;
}

export interface MultipartForm<T, F> {
  /** What `receive` made of the file part. */
  file: T;
  fields: F;
}

function invalidMultipart(): AppException {
  return AppException.validation([{ field: '', code: 'INVALID_MULTIPART' }]);
}

/** Errors of @fastify/multipart that are not a malformed body, by their code. */
function parserProblem(error: unknown, spec: MultipartFormSpec<object>): AppException {
  switch ((error as { code?: unknown } | null)?.code) {
    case 'FST_PARTS_LIMIT':
      return AppException.validation([{ field: '', code: 'MAX_ITEMS', args: { max: MAX_PARTS } }]);
    case 'FST_REQ_FILE_TOO_LARGE':
      return new AppException('FILE_TOO_LARGE', { args: { max: formatByteSize(spec.file.maxBytes) } });
    default:
      // Busboy's errors (no closing boundary, a part cut short, a malformed part header) and a client
      // that went away: the body is not a form.
      return invalidMultipart();
  }
}

/**
 * Reads a multipart form as it streams in. The first part named `spec.file.name` goes to `receive` (which
 * stores it while enforcing its limits, and whose errors, such as 413 or 415, end the request at once);
 * text parts are validated with `spec.fields`. Every other problem is one 400 VALIDATION_ERROR naming the
 * parts: the file missing (REQUIRED), sent as text (INVALID_TYPE), a second file part (MAX_ITEMS), unknown
 * parts (UNKNOWN_FIELD), text too long (MAX_LENGTH)… A file part that is not the expected file ends the
 * reading there (it may be large, and nothing after it can make the form valid), so violations of parts
 * after it are not reported. A malformed or truncated body is 400 with violation INVALID_MULTIPART.
 * When the form fails after the file was received, `discard` gets it back.
 */
export async function readMultipartForm<T, F extends object>(
  request: FastifyRequest,
  spec: MultipartFormSpec<F>,
  receive: (part: MultipartFilePart) => Promise<T>,
  discard: (file: T) => Promise<void>,
): Promise<MultipartForm<T, F>> {
  const parts = request.parts({
    limits: {
      // One byte over the file's limit: the receiver, counting the same bytes, refuses the file first.
      fileSize: spec.file.maxBytes + 1,
      parts: MAX_PARTS,
      fieldSize: MAX_TEXT_PART_BYTES,
      headerPairs: MAX_PART_HEADERS,
      headerSize: MAX_PART_HEADER_BYTES,
    },
  });
  const violations: ViolationInput[] = [];
  const texts: Record<string, string | string[]> = {};
  let received: { file: T } | undefined;
  let readToEnd = true;
  try {
    for (;;) {
      const part = await parts.next().then(
        (next) => (next.done ? undefined : next.value),
        (error: unknown) => Promise.reject(parserProblem(error, spec)),
      );
      if (part === undefined) break;
      if (part.type === 'field') {
        if (part.fieldname === spec.file.name) {
          violations.push({ field: part.fieldname, code: 'INVALID_TYPE', args: { type: 'file' } });
        } else {
          const value = String(part.value);
          const earlier = texts[part.fieldname];
          texts[part.fieldname] = earlier === undefined ? value : [earlier, value].flat();
        }
        continue;
      }
      if (part.fieldname === spec.file.name && received === undefined) {
        received = { file: await receiveFile(part.file, part.filename, part.mimetype, receive) };
        continue;
      }
      violations.push(
        part.fieldname === spec.file.name
          ? { field: part.fieldname, code: 'MAX_ITEMS', args: { max: 1 } }
          : { field: part.fieldname, code: 'UNKNOWN_FIELD' },
      );
      readToEnd = false;
      break;
    }
    // One violation per field: a file sent as text is already reported.
    const fileReported = violations.some((v) => v.field === spec.file.name);
    if (received === undefined && readToEnd && !fileReported) {
      violations.push({ field: spec.file.name, code: 'REQUIRED' });
    }
    const fields = await validatedFields(spec.fields, texts, violations);
    if (violations.length > 0 || received === undefined) throw AppException.validation(violations);
    return { file: received.file, fields };
  } catch (error: unknown) {
    if (received !== undefined) await discard(received.file);
    throw error;
  }
}

/**
 * Hands the part to `receive`. The parser fails the part's own stream when the body is malformed or cut
 * short (`errored`): whatever `receive` then throws, the client sent no valid form.
 */
async function receiveFile<T>(
  stream: Readable,
  fileName: string,
  contentType: string,
  receive: (part: MultipartFilePart) => Promise<T>,
): Promise<T> {
  try {
    return await receive({ fileName, contentType, stream });
  } catch (error: unknown) {
    if (stream.errored && !(error instanceof AppException)) throw invalidMultipart();
    throw error;
  } finally {
    // Whatever `receive` left unread is not wanted (it stopped early): release the parser.
    if (!stream.readableEnded) stream.destroy();
  }
}

/** The text parts as the DTO, its violations appended to `violations` (the pipe of JSON bodies does the work). */
async function validatedFields<F extends object>(
  fields: ClassConstructor<F>,
  texts: Record<string, string | string[]>,
  violations: ViolationInput[],
): Promise<F> {
  try {
    return (await new ValidationPipe().transform(texts, { type: 'body', metatype: fields })) as F;
  } catch (error: unknown) {
    if (!(error instanceof AppException) || !error.options.violations) throw error;
    violations.push(...error.options.violations);
    return {} as F;
  }
}
