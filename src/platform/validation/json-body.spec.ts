import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-body';

describe('nestsDeeperThan', () => {
  const nest = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

  it('counts arrays and objects alike, up to the limit and one past it', () => {
    expect(nestsDeeperThan(nest(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan(nest(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan('{"a":{"b":{"c":1}}}', 2)).toBe(true);
    expect(nestsDeeperThan('{"a":{"b":{"c":1}}}', 3)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan(`{"text":"${'[{'.repeat(100)}","q":"a\\\\\\"[[["}`, 1)).toBe(false);
  });

  it('stops early on a deep prefix without reading the rest', () => {
    expect(nestsDeeperThan(`${'['.repeat(40)}${'x'.repeat(1_000_000)}`, MAX_JSON_DEPTH)).toBe(true);
  });
});
