/** The file types the service stores, by media type. */
export const FILE_TYPES = ['application/pdf', 'image/png', 'image/jpeg'] as const;
export type FileType = (typeof FILE_TYPES)[number];

/** The leading bytes ("magic numbers") that identify each type. */
const SIGNATURES: ReadonlyArray<{ type: FileType; magic: readonly number[] }> = [
  { type: 'application/pdf', magic: [0x25, 0x50, 0x44, 0x46, 0x2d] }, // %PDF-
  { type: 'image/png', magic: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] }, // \x89PNG\r\n\x1a\n
  { type: 'image/jpeg', magic: [0xff, 0xd8, 0xff] }, // SOI marker and the first segment's marker
];

/** How many leading bytes decide the type. */
export const SIGNATURE_BYTES = Math.max(...SIGNATURES.map((s) => s.magic.length));

/** The type the file's first bytes announce, or undefined for anything else (executables, text, empty). */
export function detectFileType(head: Uint8Array): FileType | undefined {
  return SIGNATURES.find(({ magic }) => magic.length <= head.length && magic.every((b, i) => head[i] === b))
    ?.type;
}

/**
 * The media type a part declares, lower case and without parameters; undefined when it declares none that
 * means anything: no Content-Type, or `application/octet-stream` ("some bytes", what clients send when they
 * do not know the type). Then the bytes alone decide.
 */
export function declaredMediaType(contentType: string | undefined): string | undefined {
  const mediaType = contentType?.split(';')[0].trim().toLowerCase();
  return mediaType && mediaType !== 'application/octet-stream' ? mediaType : undefined;
}

export type FileTypeCheck =
  | { accepted: true; type: FileType }
  /** The bytes are none of the allowed types. */
  | { accepted: false; reason: 'NOT_ALLOWED' }
  /** The bytes are an allowed type, but not the one the client declared. */
  | { accepted: false; reason: 'MISMATCH'; detected: FileType };

/**
 * Decides a file's type by its bytes: it must be one of `allowed`, and the same as the declared type when
 * one is declared (a PDF sent as `image/png` is refused: the client is confused or lying).
 */
export function checkFileType(
  head: Uint8Array,
  declared: string | undefined,
  allowed: readonly FileType[],
): FileTypeCheck {
  const detected = detectFileType(head);
  if (!detected || !allowed.includes(detected)) return { accepted: false, reason: 'NOT_ALLOWED' };
  if (declared !== undefined && declared !== detected)
    return { accepted: false, reason: 'MISMATCH', detected };
  return { accepted: true, type: detected };
}

/** The usual file name extension of a type (for a name-less upload). */
export const FILE_EXTENSIONS: Record<FileType, string> = {
  'application/pdf': '.pdf',
  'image/png': '.png',
  'image/jpeg': '.jpg',
};
