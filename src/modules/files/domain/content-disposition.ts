/**
 * Characters kept in the quoted ASCII `filename`: printable ASCII except those that end or escape the
 * quoted string (`"`, `\`), that naive parsers split parameters or header lists on (`;`, `,`), that some
 * browsers percent-decode (`%`) and path separators (`/`). Everything else becomes `_` there.
 */
const UNSAFE_IN_FALLBACK = /[^\x20-\x7e]|["\\;,%/]/gu;

/** RFC 8187 attr-char: what may appear unencoded in an extended value (`filename*`). */
const NOT_ATTR_CHAR = /[^A-Za-z0-9!#$&+\-.^_`|~]/;

/** The UTF-8 bytes of `value`, attr-chars as they are and every other byte as `%XX`. */
function encodeExtendedValue(value: string): string {
  return Array.from(new TextEncoder().encode(value), (byte) => {
    const char = String.fromCharCode(byte);
    return NOT_ATTR_CHAR.test(char) ? `%${byte.toString(16).toUpperCase().padStart(2, '0')}` : char;
  }).join('');
}

/**
 * `Content-Disposition: attachment` for a file name (RFC 6266): a quoted ASCII `filename` every client
 * understands, plus `filename*=UTF-8''…` (RFC 8187) with the exact name whenever the ASCII form had to
 * change it (non-ASCII letters, quotes, separators). Safe for any input: the header value never holds a
 * quote, backslash or control character outside the percent-encoded form, so no name can end the header,
 * add a parameter or inject another header.
 */
export function attachmentDisposition(fileName: string): string {
  const fallback = fileName.replace(UNSAFE_IN_FALLBACK, '_');
  const header = `attachment; filename="${fallback}"`;
  return fallback === fileName ? header : `${header}; filename*=UTF-8''${encodeExtendedValue(fileName)}`;
}

/**
 * The longest header `attachmentDisposition` makes for a name of at most `maxNameLength` code points: the
 * ASCII `filename` has one character per code point, the extended value at most twelve (four UTF-8 bytes,
 * each `%XX`). The OpenAPI document declares it as the header's maxLength.
 */
export function maxDispositionLength(maxNameLength: number): number {
  return 'attachment; filename=""'.length + maxNameLength + "; filename*=UTF-8''".length + 12 * maxNameLength;
}
