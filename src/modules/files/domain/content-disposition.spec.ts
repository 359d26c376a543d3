import { attachmentDisposition, maxDispositionLength } from './content-disposition';
import { MAX_FILE_NAME_LENGTH } from './file-name';

describe('attachmentDisposition', () => {
  it('quotes a plain ASCII name and adds nothing else', () => {
    expect(attachmentDisposition('invoice 2026-01.pdf')).toBe('attachment; filename="invoice 2026-01.pdf"');
  });

  it.each([
    ['отчёт.pdf', `attachment; filename="_____.pdf"; filename*=UTF-8''%D0%BE%D1%82%D1%87%D1%91%D1%82.pdf`],
    ['"; x=1.pdf', `attachment; filename="__ x=1.pdf"; filename*=UTF-8''%22%3B%20x%3D1.pdf`],
    ['../../etc/passwd', `attachment; filename=".._.._etc_passwd"; filename*=UTF-8''..%2F..%2Fetc%2Fpasswd`],
    ['a\\b.pdf', `attachment; filename="a_b.pdf"; filename*=UTF-8''a%5Cb.pdf`],
    [
      'evil\r\nX-Injected: 1.pdf',
      `attachment; filename="evil__X-Injected: 1.pdf"; filename*=UTF-8''evil%0D%0AX-Injected%3A%201.pdf`,
    ],
    ['100%25.pdf', `attachment; filename="100_25.pdf"; filename*=UTF-8''100%2525.pdf`],
    ['a,b.pdf', `attachment; filename="a_b.pdf"; filename*=UTF-8''a%2Cb.pdf`],
    ['😀.png', `attachment; filename="_.png"; filename*=UTF-8''%F0%9F%98%80.png`],
    ["it's (1).pdf", `attachment; filename="it's (1).pdf"`],
  ])('%j → %s', (name, header) => {
    expect(attachmentDisposition(name)).toBe(header);
  });

  it('yields a legal header value for any name: printable ASCII only, one quoted filename', () => {
    const nasty = ['\u0000', '\r', '\n', '"', '\\', ';', '\u007f', 'é', '\ud800', '\u2028', '%0A'];
    for (const a of nasty) {
      for (const b of nasty) {
        const header = attachmentDisposition(`x${a}y${b}z.pdf`);
        expect(header).toMatch(/^[\x20-\x7e]+$/);
        expect(header).toMatch(
          /^attachment; filename="[^"\\]*"(; filename\*=UTF-8''[A-Za-z0-9!#$&+\-.^_`|~%]+)?$/,
        );
      }
    }
  });

  it('round-trips the exact name through filename*', () => {
    const name = 'Договор №5 "финал"; копия.pdf';
    const encoded = /filename\*=UTF-8''(.+)$/.exec(attachmentDisposition(name))?.[1] ?? '';
    expect(decodeURIComponent(encoded)).toBe(name);
  });

  it('stays within maxDispositionLength for the longest names, which reach it', () => {
    const max = maxDispositionLength(MAX_FILE_NAME_LENGTH);
    for (const char of ['a', 'é', '€', '😀', '"']) {
      const header = attachmentDisposition(char.repeat(MAX_FILE_NAME_LENGTH));
      expect(header.length).toBeLessThanOrEqual(max);
    }
    expect(attachmentDisposition('😀'.repeat(MAX_FILE_NAME_LENGTH))).toHaveLength(max);
  });
});
