import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  productionPackageDirs,
  strippedSource,
  stripPackage,
  type StripReport,
} from '../../scripts/strip-sources';

// The image's build strips its production dependencies (Dockerfile); these specs hold that the stripping only
// changes layout: the modules behave as before, licences stay, and what cannot be stripped safely is left alone.

const ROOT = path.resolve(__dirname, '../..');

function evaluate(source: string): Record<string, unknown> {
  const module = { exports: {} as Record<string, unknown> };
  // The module wrapper CommonJS gives a file; the specs' own sources only, never input from outside.
  new Function('module', 'exports', 'require', source)(module, module.exports, require);
  return module.exports;
}

const SAMPLE = `/*!
 * sample 1.0.0 @license MIT
 */
/*
 * Copyright (c) 2017-2025 Someone, MIT Licensed
 */
// SPDX-License-Identifier: Apache-2.0
'use strict';

/**
 * Formats an amount. A long JSDoc block, as dependencies carry them.
 * @param {number} amount
 */
function format(amount) {
  // a line comment
  const text = \`\${amount.toFixed(2)} RUB\`; /* an inline comment */
  return text.replace(/\\s+/g, '\\u00a0');
}

if (typeof module === 'undefined') return;
module.exports = { format, url: 'http://example.com/*not-a-comment*/', pattern: /a\\/\\/b/.source };
`;

describe('strip-sources (the image build)', () => {
  it('drops comments and layout, keeps licences, and the module behaves the same', () => {
    const stripped = strippedSource(SAMPLE);
    expect(stripped).toBeDefined();
    expect(stripped!.length).toBeLessThan(SAMPLE.length);
    expect(stripped).not.toContain('A long JSDoc block');
    expect(stripped).not.toContain('a line comment');
    expect(stripped).toContain('@license MIT');
    expect(stripped).toContain('Copyright (c) 2017-2025 Someone, MIT Licensed');
    expect(stripped).toContain('SPDX-License-Identifier: Apache-2.0');
    expect(stripped).toMatch(/Apache-2\.0\s*["']use strict["'];/);

    const before = evaluate(SAMPLE);
    const after = evaluate(stripped!);
    expect(after.url).toBe('http://example.com/*not-a-comment*/');
    expect(after.pattern).toBe(before.pattern);
    for (const amount of [0, 1.5, 1234.567]) {
      expect((after.format as (n: number) => string)(amount)).toBe(
        (before.format as (n: number) => string)(amount),
      );
    }
  });

  it('leaves alone what does not parse or would not get smaller', () => {
    expect(strippedSource('const a = ;')).toBeUndefined();
    expect(strippedSource('a()')).toBeUndefined();
  });

  it('keeps a shebang', () => {
    expect(strippedSource('#!/usr/bin/env node\n// run it\nconsole.log( 1 );\n')).toBe(
      '#!/usr/bin/env node\nconsole.log(1);',
    );
  });

  describe('on a package tree', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'strip-sources-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('strips .js and .cjs files, not JSON, nested packages or links', () => {
      const pkg = path.join(dir, 'node_modules', 'pkg');
      mkdirSync(path.join(pkg, 'lib'), { recursive: true });
      mkdirSync(path.join(pkg, 'node_modules', 'nested'), { recursive: true });
      writeFileSync(path.join(pkg, 'index.js'), '// comment\nmodule.exports  =  1;\n');
      writeFileSync(path.join(pkg, 'lib', 'other.cjs'), '/** doc */\nexports.a  =  2;\n');
      writeFileSync(path.join(pkg, 'package.json'), '{ "name": "pkg" }\n');
      writeFileSync(path.join(pkg, 'node_modules', 'nested', 'index.js'), '// nested\nmodule.exports = 3;\n');
      writeFileSync(path.join(dir, 'outside.js'), '// outside\nmodule.exports = 4;\n');
      symlinkSync(path.join(dir, 'outside.js'), path.join(pkg, 'link.js'));

      const report: StripReport = { files: 0, stripped: 0, kept: 0, bytesBefore: 0, bytesAfter: 0 };
      stripPackage(pkg, report);

      expect(readFileSync(path.join(pkg, 'index.js'), 'utf8')).toBe('module.exports=1;');
      expect(readFileSync(path.join(pkg, 'lib', 'other.cjs'), 'utf8')).toBe('exports.a=2;');
      expect(readFileSync(path.join(pkg, 'package.json'), 'utf8')).toBe('{ "name": "pkg" }\n');
      expect(readFileSync(path.join(pkg, 'node_modules', 'nested', 'index.js'), 'utf8')).toContain(
        '// nested',
      );
      expect(readFileSync(path.join(dir, 'outside.js'), 'utf8')).toContain('// outside');
      expect(report).toMatchObject({ files: 2, stripped: 2, kept: 0 });
    });

    it('a real package, stripped, answers as the original does', () => {
      // json5: a parser (regular expressions of Unicode classes, a shebang'd CLI) that only the dev tools use,
      // so the checkout's copy stays as published even where CI has stripped the production dependencies.
      expect(productionPackageDirs(ROOT)).not.toContain(path.join(ROOT, 'node_modules', 'json5'));
      const copy = path.join(dir, 'node_modules', 'json5');
      cpSync(path.join(ROOT, 'node_modules', 'json5'), copy, { recursive: true });
      const report: StripReport = { files: 0, stripped: 0, kept: 0, bytesBefore: 0, bytesAfter: 0 };
      stripPackage(copy, report);
      expect(report.stripped).toBeGreaterThanOrEqual(8);
      expect(report.bytesAfter).toBeLessThan(report.bytesBefore * 0.9);
      expect(readFileSync(path.join(copy, 'lib', 'cli.js'), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);

      type Json5 = {
        parse(text: string): unknown;
        stringify(value: unknown, replacer?: null, space?: number): string;
      };
      const original = createRequire(path.join(ROOT, 'package.json'))('json5') as Json5;
      const stripped = createRequire(path.join(dir, 'package.json'))('json5') as Json5;
      expect(createRequire(path.join(dir, 'package.json')).resolve('json5')).toContain(dir);
      const texts = [
        "{ unquoted: 'and you can quote me on that', trailing: [1, 2,], }",
        '// a comment\n{ hex: 0xdecaf, leading: .8675309, positive: +1, infinity: -Infinity }',
        "{ 'ünïcödé': 'line\\\nbreak', ℵ: 1, $ident_\\u0041: true }",
        '/* block */ [null, "\\u2028", 1e-7]',
      ];
      for (const text of texts) {
        const value = original.parse(text);
        expect(stripped.parse(text)).toEqual(value);
        expect(stripped.stringify(value, null, 2)).toBe(original.stringify(value, null, 2));
      }
      expect(() => stripped.parse('{ a: }')).toThrow(/invalid character/);
    });
  });

  it('names the production dependencies only', () => {
    const dirs = productionPackageDirs(ROOT).map((dir) => path.relative(ROOT, dir));
    expect(dirs).toContain(path.join('node_modules', 'typeorm'));
    expect(dirs).toContain(path.join('node_modules', '@nestjs', 'core'));
    expect(dirs).not.toContain(path.join('node_modules', 'jest'));
    expect(dirs).not.toContain(path.join('node_modules', 'uglify-js'));
    expect(dirs).not.toContain('');
  });
});
