import * as fs from 'node:fs';
import * as path from 'node:path';
import { RULESET, spectralLint, SpectralResult } from './spectral/lint';

/**
 * The Spectral ruleset encodes the contract's interface rules: each rule has a fixture in
 * test/spectral/violations/<rule>.yaml that breaks exactly that rule, and test/spectral/valid.yaml,
 * which follows the contract, passes every rule.
 */
const FIXTURES = path.join(__dirname, 'spectral');
const VIOLATIONS = path.join(FIXTURES, 'violations');

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
    results = await spectralLint([
      path.join(FIXTURES, 'valid.yaml'),
      ...fixtureRules.map((rule) => path.join(VIOLATIONS, `${rule}.yaml`)),
    ]);
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
