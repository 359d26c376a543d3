import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { AppException, TranslationArgs, ViolationInput } from './app-exception';
import { I18N_PATH } from './i18n-translations.module';
import { MAX_FIELD_PATH_LENGTH, MAX_PROBLEM_TEXT_LENGTH, MAX_VIOLATIONS } from './problem';
import { ProblemRenderer } from './problem-renderer';
import { Translator } from './translator';

/** A translator that spells out the key and its arguments, or returns `text` when given. */
function translator(text?: string): Translator {
  return {
    translate: (key: string, _lang: string, args?: TranslationArgs) =>
      text ?? `${key} ${JSON.stringify(args ?? {})}`,
    has: () => true,
  } as unknown as Translator;
}

const codePoints = (value: string) => [...value].length;

describe('ProblemRenderer keeps the bounds the OpenAPI document declares for a problem', () => {
  it('lists at most MAX_VIOLATIONS violations, in order', () => {
    const violations: ViolationInput[] = Array.from({ length: MAX_VIOLATIONS + 5 }, (_, i) => ({
      field: `x${i}`,
      code: 'UNKNOWN_FIELD',
    }));
    const body = new ProblemRenderer(translator()).render(AppException.validation(violations), 'en');
    expect(body.violations).toHaveLength(MAX_VIOLATIONS);
    expect(body.violations?.[0].field).toBe('x0');
  });

  it('cuts a long field path and does not echo control characters', () => {
    const violations: ViolationInput[] = [
      { field: 'a'.repeat(MAX_FIELD_PATH_LENGTH * 10), code: 'UNKNOWN_FIELD' },
      { field: 'we\u0000ird\r\nname\u009b', code: 'UNKNOWN_FIELD' },
      { field: 'items[0].quantity', code: 'MIN', args: { min: 1 } },
    ];
    const [long, control, plain] =
      new ProblemRenderer(translator()).render(AppException.validation(violations), 'en').violations ?? [];
    expect(codePoints(long.field)).toBe(MAX_FIELD_PATH_LENGTH);
    expect(long.field.endsWith('…')).toBe(true);
    expect(control.field).toBe('we\uFFFDird\uFFFD\uFFFDname\uFFFD');
    expect(plain.field).toBe('items[0].quantity');
  });

  it('cuts a detail or message over MAX_PROBLEM_TEXT_LENGTH', () => {
    const long = '😀'.repeat(MAX_PROBLEM_TEXT_LENGTH + 1);
    const body = new ProblemRenderer(translator(long)).render(
      AppException.validation([{ field: 'x', code: 'REQUIRED' }]),
      'ru',
    );
    expect(codePoints(body.detail)).toBe(MAX_PROBLEM_TEXT_LENGTH);
    expect(codePoints(body.violations?.[0].message ?? '')).toBe(MAX_PROBLEM_TEXT_LENGTH);
  });

  it('never needs to cut a catalogue text: each stays far below the bound with its arguments', () => {
    const texts = readdirSync(I18N_PATH).flatMap((lang) =>
      readdirSync(path.join(I18N_PATH, lang))
        .filter((file) => file.endsWith('.json'))
        .flatMap((file) => Object.values(JSON.parse(readFileSync(path.join(I18N_PATH, lang, file), 'utf8'))))
        .filter((text): text is string => typeof text === 'string'),
    );
    expect(texts.length).toBeGreaterThan(50);
    // Arguments are ids, statuses, sizes, media types and paths: well under 100 characters each.
    const longest = Math.max(
      ...texts.map((text) => codePoints(text) + 100 * (text.match(/\{/g) ?? []).length),
    );
    expect(longest).toBeLessThan(MAX_PROBLEM_TEXT_LENGTH / 2);
  });
});
