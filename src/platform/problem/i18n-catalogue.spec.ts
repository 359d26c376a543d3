import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ERROR_CODE_NAMES, VIOLATION_CODES } from './error-codes';
import { SUPPORTED_LANGUAGES } from './language';
import { I18N_PATH } from './i18n-translations.module';

type Catalogue = Map<string, string>;

/** `{ "A": "x", "B": { "C": "y" } }` in errors.json → `errors.A`, `errors.B.C` (nestjs-i18n's key form). */
function flatten(prefix: string, value: unknown, into: Catalogue): Catalogue {
  if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) flatten(`${prefix}.${key}`, child, into);
  } else {
    into.set(prefix, value as string);
  }
  return into;
}

function loadCatalogue(lang: string): Catalogue {
  const dir = path.join(I18N_PATH, lang);
  const catalogue: Catalogue = new Map();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
    flatten(path.basename(file, '.json'), JSON.parse(readFileSync(path.join(dir, file), 'utf8')), catalogue);
  }
  return catalogue;
}

function placeholders(text: string): string[] {
  return [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [file] : [];
  });
}

/** Every literal i18n key in the sources (`detailKey: 'errors.X'`, `'validation.Y'`), with where it is. */
function keysUsedInSources(): Map<string, string> {
  const used = new Map<string, string>();
  const literal = /['"`]((?:errors|validation)\.[A-Za-z0-9_.]*[A-Za-z0-9_])['"`]/g;
  for (const file of sourceFiles(path.resolve(__dirname, '..', '..'))) {
    for (const match of readFileSync(file, 'utf8').matchAll(literal)) {
      used.set(match[1], path.relative(path.resolve(__dirname, '..', '..', '..'), file));
    }
  }
  return used;
}

const catalogues = new Map(SUPPORTED_LANGUAGES.map((lang) => [lang, loadCatalogue(lang)]));
const usedKeys = keysUsedInSources();

describe('i18n catalogues', () => {
  it.each(SUPPORTED_LANGUAGES)('%s has a detail text for every error code', (lang) => {
    const catalogue = catalogues.get(lang)!;
    const missing = ERROR_CODE_NAMES.filter((code) => !catalogue.get(`errors.${code}`));
    expect(missing).toEqual([]);
  });

  it.each(SUPPORTED_LANGUAGES)('%s has a message for every violation code', (lang) => {
    const catalogue = catalogues.get(lang)!;
    const missing = VIOLATION_CODES.filter((code) => !catalogue.get(`validation.${code}`));
    expect(missing).toEqual([]);
  });

  it('has the same keys in every language', () => {
    const [first, ...others] = SUPPORTED_LANGUAGES.map((lang) => [...catalogues.get(lang)!.keys()].sort());
    for (const keys of others) expect(keys).toEqual(first);
  });

  it('has the same {placeholders} for a key in every language', () => {
    const mismatches: string[] = [];
    const [reference, ...others] = SUPPORTED_LANGUAGES;
    for (const [key, text] of catalogues.get(reference)!) {
      for (const lang of others) {
        const translated = catalogues.get(lang)!.get(key);
        if (translated === undefined) continue; // reported by the key-set test
        const expected = placeholders(text).join(', ');
        const actual = placeholders(translated).join(', ');
        if (actual !== expected) mismatches.push(`${key}: ${reference} {${expected}} vs ${lang} {${actual}}`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('has only non-empty texts', () => {
    const empty = [...catalogues].flatMap(([lang, catalogue]) =>
      [...catalogue]
        .filter(([, text]) => typeof text !== 'string' || text.trim() === '')
        .map(([key]) => `${lang}:${key}`),
    );
    expect(empty).toEqual([]);
  });

  it.each(SUPPORTED_LANGUAGES)('%s has every key the sources name literally', (lang) => {
    expect(usedKeys.size).toBeGreaterThan(0);
    const catalogue = catalogues.get(lang)!;
    const missing = [...usedKeys]
      .filter(([key]) => !catalogue.has(key))
      .map(([key, file]) => `${key} (${file})`);
    expect(missing).toEqual([]);
  });

  it('has no text that neither a code nor a source names (dead or misspelt keys)', () => {
    const reachable = new Set([
      ...ERROR_CODE_NAMES.map((code) => `errors.${code}`),
      ...VIOLATION_CODES.map((code) => `validation.${code}`),
      ...usedKeys.keys(),
    ]);
    const dead = [...catalogues.get(SUPPORTED_LANGUAGES[0])!.keys()].filter((key) => !reachable.has(key));
    expect(dead).toEqual([]);
  });
});
