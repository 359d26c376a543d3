import * as fs from 'node:fs';
import * as path from 'node:path';
import { RULESET, spectralLint, SpectralResult } from './spectral/lint';

/**
 * The Spectral ruleset encodes the API's interface rules: each rule has a fixture in
 * test/spectral/violations/<rule>.yaml that breaks exactly that rule, and test/spectral/valid.yaml,
 * which follows those rules, passes every rule. The ruleset also extends the OWASP ruleset, whose rules
 * are the package's own (and tested there): the fixtures, kept to what each of the API's rules needs, are
 * judged by those rules only; the served document passes the OWASP rules too (openapi.e2e-spec).
 */
const FIXTURES = path.join(__dirname, 'spectral');
const VIOLATIONS = path.join(FIXTURES, 'violations');

/** Findings of the OWASP ruleset the ruleset extends: not the fixtures' subject. */
const isOwasp = (result: SpectralResult) => result.code.startsWith('owasp:');

/** Rules the ruleset declares and does not switch off (keys two spaces deep under `rules:`). */
function declaredRules(): string[] {
  const text = fs.readFileSync(RULESET, 'utf8');
  const rulesBlock = text.slice(text.indexOf('\nrules:\n'));
  return [...rulesBlock.matchAll(/^ {2}([A-Za-z0-9-]+):(.*)$/gm)]
    .filter(([, , value]) => !/^\s*off\b/.test(value))
    .map(([, name]) => name);
}

const fixtureRules = fs
  .readdirSync(VIOLATIONS)
  .filter((file) => file.endsWith('.yaml'))
  .map((file) => file.replace(/\.yaml$/, ''))
  .sort();

describe('Spectral ruleset (.spectral.yaml)', () => {
  let results: SpectralResult[];
  const found = (file: string) =>
    results.filter((r) => r.source && path.resolve(r.source) === path.resolve(file)).map((r) => r.code);

  beforeAll(async () => {
    const all = await spectralLint([
      path.join(FIXTURES, 'valid.yaml'),
      ...fixtureRules.map((rule) => path.join(VIOLATIONS, `${rule}.yaml`)),
    ]);
    // The OWASP rules did run on the fixtures (they find unbounded strings there), so a filter that hid
    // the API's own rules' findings would show here.
    expect(all.some(isOwasp)).toBe(true);
    results = all.filter((result) => !isOwasp(result));
  });

  it('every rule it declares has a violating fixture, and every fixture names a rule', () => {
    expect(fixtureRules).toEqual([...declaredRules()].sort());
  });

  it('passes the valid fixture, which follows every convention', () => {
    expect(
      results.filter((r) => !r.source || !r.source.includes(`${path.sep}violations${path.sep}`)),
    ).toEqual([]);
  });

  it.each(fixtureRules)('fails the %s fixture with that rule only', (rule) => {
    const codes = found(path.join(VIOLATIONS, `${rule}.yaml`));
    expect(codes.length).toBeGreaterThan(0);
    expect(new Set(codes)).toEqual(new Set([rule]));
  });
});
