import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/**
 * The commands production runs beside the service, as built (`npm run migration:run` is the migrations Job's
 * `node dist/scripts/migrate.js`): every line they print is one JSON object; `npm run openapi` prints the
 * path it wrote and nothing else.
 */
const ROOT = path.resolve(__dirname, '..');

function run(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('commands of the production roles', () => {
  it('the migrations command prints one JSON object per line, no colours', async () => {
    const env = {
      ...process.env,
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      // On the server itself, as the Job migrates (not through a transaction pooler).
      DATABASE_URL: process.env.E2E_DIRECT_DATABASE_URL,
    };
    const { code, stdout, stderr } = await run(['dist/scripts/migrate.js'], env);
    expect(code).toBe(0);
    const lines = `${stdout}${stderr}`.split('\n').filter((line) => line !== '');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).not.toContain('\u001b['); // no ANSI colour codes
      expect(() => JSON.parse(line) as unknown).not.toThrow();
    }
    const [migrated, limits] = lines.slice(-2).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(migrated).toMatchObject({
      context: 'Migrations',
      msg: expect.stringMatching(/^(no migrations to apply|applied migrations: )/),
    });
    // Then the session limits, as the role's defaults (what holds behind a pooler).
    expect(limits).toMatchObject({
      context: 'Migrations',
      msg: 'session limits set as the role defaults',
      statement_timeout: '15000',
      idle_in_transaction_session_timeout: '15000',
      jit: 'off',
    });
  });

  it('the migrations command without DATABASE_URL says so in one JSON line and exits 1', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production' };
    delete env.DATABASE_URL;
    const { code, stdout, stderr } = await run(['dist/scripts/migrate.js'], env);
    expect(code).toBe(1);
    const lines = `${stdout}${stderr}`.split('\n').filter((line) => line !== '');
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual([
      'Invalid configuration: DATABASE_URL is required to run migrations',
    ]);
  });

  it('the OpenAPI command prints the path it wrote and nothing else', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'order-service-openapi-'));
    try {
      const target = path.join(dir, 'openapi.json');
      const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info' };
      delete env.JWT_SECRET; // its warning is for the service, not for this command
      const { code, stdout, stderr } = await run(['dist/scripts/openapi.js', target], env);
      expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: `${target}\n`, stderr: '' });
      expect(JSON.parse(readFileSync(target, 'utf8'))).toMatchObject({ openapi: expect.any(String) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
