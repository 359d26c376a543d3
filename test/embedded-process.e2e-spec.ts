import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { freePort } from './support/net';

/**
 * The real entry point (`node dist/src/main.js`, as `npm start` runs it) with no DATABASE_URL and no
 * REDIS_URL: it starts its embedded PostgreSQL, serves /health and /ready, and shuts down gracefully.
 */
const ROOT = path.resolve(__dirname, '..');

async function waitFor(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('npm start on the embedded store', () => {
  let child: ChildProcess;
  let port: number;
  let dataDir: string;
  let output = '';

  beforeAll(async () => {
    port = await freePort();
    dataDir = mkdtempSync(path.join(tmpdir(), 'order-service-data-'));
    chmodSync(dataDir, 0o755);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
    };
    delete env.DATABASE_URL;
    delete env.REDIS_URL;
    env.NODE_ENV = 'development';
    env.LOG_LEVEL = 'info';
    child = spawn(process.execPath, ['dist/src/main.js'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    await waitFor(`http://127.0.0.1:${port}/health`, 45_000);
  }, 60_000);

  afterAll(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers /health and /ready with the embedded database and in-process queue', async () => {
    const ready = await fetch(`http://127.0.0.1:${port}/ready`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as {
      details: Record<string, { status: string; mode?: string; backend?: string }>;
    };
    expect(body.details.database).toMatchObject({ status: 'up', mode: 'embedded' });
    expect(body.details.queue).toMatchObject({ status: 'up', backend: 'in-process' });
  });

  it('finishes an in-flight request after SIGTERM, then exits 0', async () => {
    // A request whose body is still arriving when the signal comes is in flight.
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    const body = JSON.stringify({ probe: 'in-flight' });
    let response = '';
    socket.on('data', (d: Buffer) => (response += d.toString()));
    socket.write(
      `POST /api/v1/in-flight-probe HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\nAccept-Language: en\r\n\r\n${body.slice(0, 5)}`,
    );
    await new Promise((r) => setTimeout(r, 300));
    const exited = exitOf(child);
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    socket.write(body.slice(5));
    const code = await exited;
    await new Promise((r) => (socket.destroyed ? r(undefined) : socket.once('close', r)));
    expect(response).toMatch(/^HTTP\/1\.1 404 /);
    expect(response).toContain('application/problem+json');
    expect(response).toContain('"code":"RESOURCE_NOT_FOUND"');
    expect(code).toBe(0);
    expect(output).toContain('SIGTERM received');
  }, 40_000);
});
