import { resolveLanguage } from './language';

describe('resolveLanguage', () => {
  it.each([
    [undefined, 'ru'],
    ['', 'ru'],
    ['en', 'en'],
    ['EN-us', 'en'],
    ['en-US,ru;q=0.9', 'en'],
    ['ru;q=0.1, en;q=1.0', 'ru'], // the first tag decides; weights are ignored
    ['de-DE, en', 'ru'], // unknown first tag falls back to the default, not to the second tag
    ['*', 'ru'],
  ])('%p → %s', (header, expected) => {
    expect(resolveLanguage(header)).toBe(expected);
  });
});
