/**
 * CSV as RFC 4180 writes it: CRLF line ends; a field holding a comma, a double quote, CR or LF is quoted,
 * its quotes doubled. A text cell that a spreadsheet would run as a formula (it begins with `=`, `+`, `-`,
 * `@`, a tab or a carriage return) is prefixed with `'`, so no cell runs as a formula (CSV injection).
 */
export type CsvCell = string | number | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvField(cell: CsvCell): string {
  if (cell === undefined) return '';
  let text = typeof cell === 'number' ? String(cell) : cell;
  if (typeof cell === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(cells: readonly CsvCell[]): string {
  return `${cells.map(csvField).join(',')}\r\n`;
}
