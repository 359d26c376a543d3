/** Longest stored file name, in characters (code points): what common file systems allow. */
export const MAX_FILE_NAME_LENGTH = 255;
/** An extension longer than this is not worth keeping when a long name is shortened. */
const MAX_KEPT_EXTENSION = 16;

/** C0 and C1 control characters and DEL: never part of a name a person chose. */
const CONTROL = /\p{Cc}/gu;
/** Bidirectional overrides and isolates: they make `evil\u202Efdp.exe` display as `evilexe.pdf`. */
const BIDI_CONTROL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/gu;

/**
 * The name an uploaded file is stored and served under: the client's name reduced to its last path segment
 * (clients have sent `C:\Users\me\report.pdf`; a name is never a path), in Unicode NFC, without control and
 * bidirectional-override characters, trimmed and at most 255 characters (a shortened name keeps its
 * extension). A name left empty (or `.`, `..`) becomes `file` plus the extension of the detected type.
 * Quotes, semicolons and non-ASCII letters are kept: they are legitimate in names, and the download header
 * is built to carry any name safely (content-disposition.ts).
 */
export function normalizeFileName(raw: string | undefined, fallbackExtension: string): string {
  const lastSegment = (raw ?? '').split(/[/\\]/).pop() ?? '';
  const cleaned = lastSegment.normalize('NFC').replace(CONTROL, '').replace(BIDI_CONTROL, '').trim();
  if (cleaned === '' || cleaned === '.' || cleaned === '..') return `file${fallbackExtension}`;
  return shorten(cleaned);
}

function shorten(name: string): string {
  const chars = [...name];
  if (chars.length <= MAX_FILE_NAME_LENGTH) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? [...name.slice(dot)] : [];
  const kept = extension.length <= MAX_KEPT_EXTENSION ? extension : [];
  return [...chars.slice(0, MAX_FILE_NAME_LENGTH - kept.length), ...kept].join('').trim();
}
