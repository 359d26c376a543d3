import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { freePort } from './support/net';

/**
 * What the entry points load at start costs resident memory for the life of the process (docs/benchmarks.md,
 * idle RSS). `@nestjs/common` must be loaded first by src/bootstrap/preload-nest-common.ts, so that Nest's
 * console logger gets a deferred date formatter: a process that starts, answers a request and shuts down
 * builds no real `Intl.DateTimeFormat` (each one maps ~5.5 MB of ICU data). An import moved above the preload
 * would quietly undo that; this spec is what notices.
 */
const ROOT = path.resolve(__dirname, '..');

interface SpyReport {
  built: number;
  nestCommonFirstRequiredBy?: string;
}

async function startAnswerAndStop(entry: string, env: NodeJS.ProcessEnv, probe: string): Promise<SpyReport> {
  const dir = mkdtempSync(path.join(tmpdir(), 'startup-footprint-'));
  const out = path.join(dir, 'spy.json');
  const port = await freePort();
  const child = spawn(process.execPath, ['--require', path.join(ROOT, 'test/support/intl-spy.cjs'), entry], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      INTL_SPY_OUT: out,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const health = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
      if (health?.status === 200) break;
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`${entry} did not start: ${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const answer = await fetch(`http://127.0.0.1:${port}${probe}`, { headers: { 'accept-language': 'en' } });
    await answer.arrayBuffer();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    return JSON.parse(readFileSync(out, 'utf8')) as SpyReport;
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('start-up footprint', () => {
  it('the api builds no date formatter: @nestjs/common comes first from the preload', async () => {
    // A request that goes through auth, the error filter and i18n: a 401 Problem Details in English.
    const report = await startAnswerAndStop(
      'dist/src/main.js',
      { APP_ROLE: 'api' },
      '/api/v1/orders/00000000-0000-4000-8000-000000000001',
    );
    expect(report.nestCommonFirstRequiredBy).toBe(
      path.join(ROOT, 'dist/src/bootstrap/preload-nest-common.js'),
    );
    expect(report.built).toBe(0);
  });

  it('so does the worker process', async () => {
    const report = await startAnswerAndStop('dist/src/worker.js', { APP_ROLE: 'worker' }, '/ready');
    expect(report.nestCommonFirstRequiredBy).toBe(
      path.join(ROOT, 'dist/src/bootstrap/preload-nest-common.js'),
    );
    expect(report.built).toBe(0);
  });
});
