import { csvField, csvLine } from './csv';

describe('CSV (RFC 4180, formula injection neutralised)', () => {
  it.each([
    ['plain', 'plain'],
    ['with,comma', '"with,comma"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\r\nlines', '"two\r\nlines"'],
    ['=SUM(A1:A2)', "'=SUM(A1:A2)"],
    ['+1', "'+1"],
    ['-1', "'-1"],
    ['@cmd', "'@cmd"],
    ['\tindent', "'\tindent"],
    ['\rreturn', `"'\rreturn"`],
    ['=1,2', `"'=1,2"`],
    ['', ''],
  ])('%j → %j', (cell, field) => {
    expect(csvField(cell)).toBe(field);
  });

  it('writes numbers as they are (a negative number is not a formula) and undefined as empty', () => {
    expect(csvField(-12.5)).toBe('-12.5');
    expect(csvField(undefined)).toBe('');
  });

  it('ends every line with CRLF', () => {
    expect(csvLine(['a', 1, undefined, 'b,c'])).toBe('a,1,,"b,c"\r\n');
  });
});
