import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

/**
 * Proves the lint rule that keeps one way to run SQL (eslint.config.mjs): outside src/platform/database/, nothing
 * imports TypeORM's or pg's ways to run a statement (entities keep TypeORM's decorators). A write outside a
 * transaction does not compile (src/platform/database/sql-statement.ts: only a Tx runs a WriteStatement), which
 * test/architecture/statement-types.spec.ts proves.
 */
const ROOT = path.resolve(__dirname, '../..');

/** ESLint's findings of the rule on `code` as if it were `file` (a child process: the config is ESM). */
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
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => `${m.line}`);
}

const PLANTED = `import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Pool } from 'pg';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
export const planted = [InjectRepository, DataSource, EntityManager, Pool] as unknown as PostgresDriver;
`;

describe('one way to run SQL', () => {
  it("refuses TypeORM's and pg's ways to run a statement in a module", () => {
    expect(messages('src/modules/orders/planted.ts', PLANTED)).toEqual(['1', '2', '3', '4']);
  });

  it('lets the database layer itself, and entities, use TypeORM', () => {
    expect(messages('src/platform/database/planted.ts', PLANTED)).toEqual([]);
    expect(messages('src/modules/orders/persistence/planted.entity.ts', PLANTED)).toEqual([]);
  });
});
