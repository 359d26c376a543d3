import { formatByteSize } from './byte-size';

describe('formatByteSize', () => {
  it.each([
    [1024 * 1024, '1 MiB'],
    [10 * 1024 * 1024, '10 MiB'],
    [1536, '1.5 KiB'],
    [3 * 1024 ** 3, '3 GiB'],
    [100, '100 B'],
  ])('%d bytes → %s', (bytes, text) => {
    expect(formatByteSize(bytes)).toBe(text);
  });
});
