import { checkFileType, declaredMediaType, detectFileType, FILE_TYPES, SIGNATURE_BYTES } from './file-type';

const bytes = (...values: number[]) => Uint8Array.from(values);
const PDF = Buffer.from('%PDF-1.7\n');
const PNG = bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00);
const JPEG = bytes(0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10);
const ELF = bytes(0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00);
const MZ = Buffer.from('MZ\x90\x00\x03\x00\x00\x00', 'latin1');

describe('detectFileType', () => {
  it.each([
    ['PDF', PDF, 'application/pdf'],
    ['PNG', PNG, 'image/png'],
    ['JPEG', JPEG, 'image/jpeg'],
  ])('recognises %s by its leading bytes', (_name, head, type) => {
    expect(detectFileType(head)).toBe(type);
  });

  it.each([
    ['ELF executable', ELF],
    ['Windows executable (MZ)', MZ],
    ['plain text', Buffer.from('hello world')],
    ['HTML', Buffer.from('<!doctype html>')],
    ['empty', bytes()],
    ['PNG signature cut short', PNG.subarray(0, 7)],
    ['PDF without the dash', Buffer.from('%PDF1.7')],
    ['JPEG with only two marker bytes', bytes(0xff, 0xd8)],
    ['a signature not at the start', Buffer.concat([Buffer.from(' '), PDF])],
  ])('knows nothing of %s', (_name, head) => {
    expect(detectFileType(head)).toBeUndefined();
  });

  it('needs at most SIGNATURE_BYTES to decide', () => {
    expect(SIGNATURE_BYTES).toBe(8);
    expect(detectFileType(PNG.subarray(0, SIGNATURE_BYTES))).toBe('image/png');
  });
});

describe('declaredMediaType', () => {
  it.each([
    ['image/PNG', 'image/png'],
    [' application/pdf ; name=x', 'application/pdf'],
    ['text/plain', 'text/plain'],
    ['application/octet-stream', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%p declares %p', (header, expected) => {
    expect(declaredMediaType(header)).toBe(expected);
  });
});

describe('checkFileType', () => {
  it('accepts an allowed type, declared or not', () => {
    expect(checkFileType(PNG, 'image/png', FILE_TYPES)).toEqual({ accepted: true, type: 'image/png' });
    expect(checkFileType(PDF, undefined, FILE_TYPES)).toEqual({ accepted: true, type: 'application/pdf' });
  });

  it('refuses bytes of no allowed type, whatever the declaration', () => {
    expect(checkFileType(ELF, 'image/png', FILE_TYPES)).toEqual({ accepted: false, reason: 'NOT_ALLOWED' });
    expect(checkFileType(MZ, undefined, FILE_TYPES)).toEqual({ accepted: false, reason: 'NOT_ALLOWED' });
  });

  it('refuses a known type outside the allowed list (a PDF avatar)', () => {
    expect(checkFileType(PDF, 'application/pdf', ['image/png', 'image/jpeg'])).toEqual({
      accepted: false,
      reason: 'NOT_ALLOWED',
    });
  });

  it('refuses bytes that contradict the declared type', () => {
    expect(checkFileType(PDF, 'image/png', FILE_TYPES)).toEqual({
      accepted: false,
      reason: 'MISMATCH',
      detected: 'application/pdf',
    });
    expect(checkFileType(JPEG, 'image/jpg', FILE_TYPES)).toMatchObject({ reason: 'MISMATCH' });
  });
});
