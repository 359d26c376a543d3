import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { SchemaObject } from '@nestjs/swagger';
import { clientDocument } from '../scripts/client-document';

const ROOT = path.resolve(__dirname, '..');
const GENERATOR = path.join(ROOT, 'dist', 'scripts', 'client-generate.js');

/** Runs `npm run client:generate -- --check [args]` as built (`npm test` builds first). */
async function check(...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [GENERATOR, '--check', ...args], {
      cwd: ROOT,
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/**
 * The client's generated sources (client/src/generated/) are committed; CI fails here when they are not what
 * the current code generates, so a change of the API cannot ship with a client that does not know it.
 */
describe('the client sources generated from the OpenAPI document', () => {
  let directory: string;
  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'client-sources-'));
  });
  afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

  it('are what the current code generates (npm run client:generate)', async () => {
    const result = await check();
    expect(result).toEqual({ code: 0, output: expect.stringContaining('up to date') });
  });

  it('the check fails when the document changes, naming the file and the line', async () => {
    const document = await clientDocument();
    const file = path.join(directory, 'document.json');
    fs.writeFileSync(file, JSON.stringify(document));
    expect(await check('--document', file)).toMatchObject({ code: 0 }); // the same document as a file

    // The service starts answering one more code on one operation.
    const codes = document.components?.schemas?.GetOrderErrorCode as SchemaObject;
    codes.enum = [...(codes.enum ?? []), 'INSUFFICIENT_STOCK'];
    fs.writeFileSync(file, JSON.stringify(document));
    const result = await check('--document', file);
    expect(result.code).toBe(1);
    expect(result.output).toContain('run `npm run client:generate`');
    expect(result.output).toMatch(/client\/src\/generated\/openapi\.ts, line \d+:/);
    expect(result.output).toContain('GetOrderErrorCode');
  });
});
