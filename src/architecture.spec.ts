import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Dependency rule (after domain-driven-hexagon's dependency-cruiser config): domain code imports no HTTP,
 * framework or database module, so the rules stay testable and portable.
 */
const FORBIDDEN = [
  /^@nestjs\//,
  /^fastify/,
  /^typeorm/,
  /^pg$/,
  /^ioredis/,
  /^bullmq/,
  /^nestjs-i18n/,
  /\.entity$/,
  /\.controller$/,
];

function domainFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return domainFiles(full);
    return full.includes(`${path.sep}domain${path.sep}`) && full.endsWith('.ts') ? [full] : [];
  });
}

describe('architecture', () => {
  const files = domainFiles(path.resolve(__dirname));

  it('has domain code to check', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files.map((f) => [path.relative(__dirname, f), f]))(
    '%s imports no framework or database code',
    (_name, file) => {
      const source = fs.readFileSync(file, 'utf8');
      const imports = [...source.matchAll(/from\s+'([^']+)'/g)].map((m) => m[1]);
      expect(imports.filter((i) => FORBIDDEN.some((rule) => rule.test(i)))).toEqual([]);
    },
  );
});
