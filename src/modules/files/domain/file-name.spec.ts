import { MAX_FILE_NAME_LENGTH, normalizeFileName } from './file-name';

describe('normalizeFileName', () => {
  it.each([
    ['report.pdf', 'report.pdf'],
    ['отчёт.pdf', 'отчёт.pdf'],
    ['"; x=1.pdf', '"; x=1.pdf'],
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\me\\scan.png', 'scan.png'],
    ['evil\r\nX-Injected: 1.pdf', 'evilX-Injected: 1.pdf'],
    ['a\u0000b\u0007c\u007f\u009b.pdf', 'abc.pdf'],
    ['evil\u202Efdp.exe', 'evilfdp.exe'],
    ['  spaced name.pdf  ', 'spaced name.pdf'],
    // Decomposed "ё" (е + combining diaeresis) is stored composed.
    ['e\u0308.pdf', 'ë.pdf'],
  ])('%j is stored as %j', (raw, stored) => {
    expect(normalizeFileName(raw, '.pdf')).toBe(stored);
  });

  it.each([[undefined], [''], ['   '], ['.'], ['..'], ['dir/'], ['\r\n']])(
    'an empty name (%j) becomes file + the extension of the type',
    (raw) => {
      expect(normalizeFileName(raw, '.png')).toBe('file.png');
    },
  );

  it('shortens a long name to 255 characters, keeping its extension', () => {
    const name = normalizeFileName(`${'я'.repeat(300)}.pdf`, '.pdf');
    expect([...name]).toHaveLength(MAX_FILE_NAME_LENGTH);
    expect(name.endsWith('я.pdf')).toBe(true);
  });

  it('counts characters, not UTF-16 units, and never splits one', () => {
    const name = normalizeFileName('😀'.repeat(300), '.png');
    expect([...name]).toHaveLength(MAX_FILE_NAME_LENGTH);
    expect(name).toBe('😀'.repeat(MAX_FILE_NAME_LENGTH));
  });
});
