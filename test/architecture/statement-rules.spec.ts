import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

/**
 * Proves the lint rule that keeps every statement outside a transaction on PooledStatements (eslint.config.mjs):
 * TypeORM's DataSource and injected repositories are refused under src/, except in src/database/ itself.
 */
const ROOT = path.resolve(__dirname, '../..');

/** ESLint's findings of those two rules on `code` as if it were `file` (a child process: the config is ESM). */
function messages(file: string, code: string): string[] {
  const run = spawnSync(
    process.execPath,
    [
      path.join(ROOT, 'node_modules/eslint/bin/eslint.js'),
      '--stdin',
      '--stdin-filename',
      file,
      '--format',
      'json',
    ],
    { cwd: ROOT, input: code, encoding: 'utf8' },
  );
  const [result] = JSON.parse(run.stdout) as Array<{ messages: Array<{ line: number; ruleId: string }> }>;
  return result.messages
    .filter((m) => m.ruleId === 'no-restricted-syntax' || m.ruleId === 'no-restricted-imports')
    .map((m) => `${m.line}: ${m.ruleId}`);
}

const PLANTED = `import { InjectRepository } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
export class Planted {
  constructor(private readonly dataSource: DataSource) {}
  a(): unknown { return this.dataSource.query('SELECT 1'); }
  b(dataSource: DataSource): unknown { return dataSource.manager; }
  c(): unknown { return this.dataSource.getRepository('x'); }
  d(): unknown { return [InjectRepository, this.dataSource.transaction((db) => db.query('SELECT 1'))]; }
}
`;

describe('statements outside a transaction go through PooledStatements', () => {
  it("refuses TypeORM's bare statements and injected repositories in a module", () => {
    expect(messages('src/orders/planted.ts', PLANTED)).toEqual([
      '1: no-restricted-imports',
      '5: no-restricted-syntax',
      '6: no-restricted-syntax',
      '7: no-restricted-syntax',
    ]);
  });

  it('lets the database layer itself use TypeORM', () => {
    expect(messages('src/database/planted.ts', PLANTED)).toEqual([]);
  });
});
