import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

/** A write outside a transaction does not compile: the compiler's verdict on fixtures/statement-types.ts. */
const ROOT = path.resolve(__dirname, '../..');

describe('statement types', () => {
  it('compile reads anywhere and writes only in a transaction', () => {
    const run = spawnSync(
      process.execPath,
      [
        path.join(ROOT, 'node_modules/typescript/bin/tsc'),
        '-p',
        path.join(__dirname, 'fixtures/tsconfig.statement-types.json'),
      ],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(run.stdout + run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
