import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { startEmbeddedPostgres } from '../src/platform/database/embedded/embedded-server';
import { freePort } from './support/net';
import { answers200, until } from './support/wait';

/**
 * The real entry point (`node dist/src/main.js`, as `npm start` runs it) with no DATABASE_URL and no
 * REDIS_URL: it starts its embedded PostgreSQL, serves /health and /ready, and shuts down gracefully.
 */
const ROOT = path.resolve(__dirname, '..');

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
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
    delete env.MIGRATIONS_RUN; // a pooler run's setting: the embedded store migrates at start
    delete env.DATABASE_REPLICA_URLS; // a standby of the run's server, not of the embedded store
    delete env.REDIS_URL;
    delete env.REDIS_CLUSTER_NODES;
    env.NODE_ENV = 'development';
    env.LOG_LEVEL = 'info';
    // A process group of its own, as a shell gives a command it runs: Ctrl-C is SIGINT to that group.
    child = spawn(process.execPath, ['dist/src/main.js'], {
      cwd: ROOT,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    await answers200(`http://127.0.0.1:${port}/health`, {
      failsWhen: () => (child.exitCode === null ? undefined : `the service exited: ${output}`),
    });
    // Its start line is written once it listens: the tests below read it.
    await until('the start line', () => output.includes('"context":"Main"'));
  });

  afterAll(() => {
    if (child.exitCode === null) process.kill(-(child.pid as number), 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    const moved = /lives in (\/var\/tmp\/order-service-[0-9a-f]{12}) instead/.exec(output)?.[1];
    if (moved) rmSync(moved, { recursive: true, force: true });
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

  it('writes every line as one JSON object, and one line at info for the start (routes and modules at debug)', () => {
    const lines = output.split('\n').filter((line) => line.trim() !== '');
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
    expect(JSON.parse(lines[0])).toMatchObject({ level: expect.any(Number), time: expect.any(String) });
    const info = lines
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((l) => l.level === 30);
    expect(info.map((line) => line.msg)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^listening on http://127\\.0\\.0\\.1:${port} \\(role all\\); embedded PostgreSQL initialised and started in \\S+ on 127\\.0\\.0\\.1:\\d+$`,
        ),
      ),
    ]);
  });

  it('npm run seed uses the server npm start runs; a second start says who holds it and what to do', async () => {
    const outcomes: Array<{ code: number | null; last: string }> = [];
    for (const script of ['dist/scripts/seed.js', 'dist/src/main.js']) {
      const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(await freePort()), DATA_DIR: dataDir };
      env.LOG_LEVEL = 'info';
      delete env.DATABASE_URL;
      delete env.MIGRATIONS_RUN;
      delete env.DATABASE_REPLICA_URLS; // a standby of the run's server, not of the embedded store
      delete env.REDIS_URL;
      delete env.REDIS_CLUSTER_NODES;
      delete env.REDIS_CLUSTER_NODES;
      const second = spawn(process.execPath, [script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let said = '';
      second.stdout?.on('data', (d: Buffer) => (said += d.toString()));
      second.stderr?.on('data', (d: Buffer) => (said += d.toString()));
      const code = await exitOf(second);
      const lines = said
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { msg: string; err?: unknown });
      // A refusal is one line that says it all: no error object, no stack.
      expect(lines.filter((line) => line.err !== undefined)).toEqual([]);
      outcomes.push({ code, last: lines.map((line) => line.msg).join('\n') });
    }
    const [seed, start] = outcomes;
    expect(seed.code).toBe(0);
    expect(seed.last).toMatch(/using the embedded PostgreSQL npm start runs in /);
    expect(seed.last).toMatch(/seeded 6 products, 1 customer and 2 orders/);
    expect(start.code).toBe(1);
    expect(start.last.split('\n').pop()).toMatch(
      new RegExp(
        `in use by npm start \\(process ${child.pid}\\): stop it \\(Ctrl-C where it runs\\) and start again$`,
      ),
    );
  });

  it('Ctrl-C: finishes an in-flight request, then stops its PostgreSQL, with nothing at warn or above', async () => {
    // Where the data went (DATA_DIR, or a private directory as root when DATA_DIR is out of reach).
    const home = path.dirname(
      /started in (\S+) on 127\.0\.0\.1/.exec(output)?.[1] ?? path.join(dataDir, 'pg'),
    );
    const stateFile = path.join(home, 'pg-server.json');
    const state = JSON.parse(readFileSync(stateFile, 'utf8')) as { pid: number };
    expect(isAlive(state.pid)).toBe(true);
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
    await new Promise((r) => setTimeout(r, 300)); // the request reaches the service before the signal
    const exited = exitOf(child);
    const signalledAt = output.length;
    // As a terminal's Ctrl-C does: SIGINT to the whole foreground process group.
    process.kill(-(child.pid as number), 'SIGINT');
    await until('the shutdown to begin', () => output.includes('SIGINT received'));
    socket.write(body.slice(5));
    const code = await exited;
    await new Promise((r) => (socket.destroyed ? r(undefined) : socket.once('close', r)));
    expect(response).toMatch(/^HTTP\/1\.1 404 /);
    expect(response).toContain('application/problem+json');
    expect(response).toContain('"code":"RESOURCE_NOT_FOUND"');
    expect(code).toBe(0);
    const after = output
      .slice(signalledAt)
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(after.filter((line) => line.level >= 40)).toEqual([]);
    expect(isAlive(state.pid)).toBe(false);
    expect(existsSync(stateFile)).toBe(false);
  });
});

describe('the embedded store, run as root from a private directory, and npm run seed', () => {
  /** Runs a built script to its end with the embedded store in `dataDir`; resolves with its exit code and log. */
  async function run(script: string, dataDir: string, extra: NodeJS.ProcessEnv = {}) {
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'info', ...extra };
    delete env.DATABASE_URL;
    delete env.MIGRATIONS_RUN;
    delete env.DATABASE_REPLICA_URLS; // a standby of the run's server, not of the embedded store
    delete env.REDIS_URL;
    delete env.REDIS_CLUSTER_NODES;
    const child = spawn(process.execPath, [script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout?.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    const code = await exitOf(child);
    const messages = log
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => (JSON.parse(line) as { msg?: string }).msg ?? '');
    return { code, messages };
  }

  it('seeds once, then says there is nothing to seed', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'order-service-seed-'));
    chmodSync(dataDir, 0o755);
    try {
      const first = await run('dist/scripts/seed.js', dataDir);
      expect(first.code).toBe(0);
      expect(first.messages).toContainEqual(
        expect.stringMatching(/^seeded 6 products, 1 customer and 2 orders/),
      );
      const again = await run('dist/scripts/seed.js', dataDir);
      expect(again.code).toBe(0);
      expect(again.messages).toContain('nothing to seed: the demo data is already there');
      // As root under a TMPDIR others cannot pass, the data went to a private directory: it goes too.
      const moved = first.messages.map(
        (m) => /lives in (\/var\/tmp\/order-service-[0-9a-f]{12}) instead/.exec(m)?.[1],
      );
      for (const dir of moved) if (dir) rmSync(dir, { recursive: true, force: true });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  const asRoot = process.getuid?.() === 0 ? it : it.skip;
  asRoot('keeps the data where the postgres user can reach it, and says where', async () => {
    // A home directory is 0700: the postgres OS user the embedded server runs as cannot go through it.
    const home = mkdtempSync(path.join(tmpdir(), 'order-service-home-'));
    chmodSync(home, 0o700);
    // What the server or initdb could leave in /tmp: a password file, a Unix socket and its lock.
    const leftovers = () => readdirSync('/tmp').filter((name) => /^(pg-password-|\.s\.PGSQL\.)/.test(name));
    const before = leftovers();
    try {
      const { code, messages } = await run('dist/scripts/seed.js', path.join(home, 'project', '.data'));
      expect(code).toBe(0);
      const moved = messages.find((m) => m.includes('is not reachable by the postgres OS user'));
      expect(moved).toMatch(/the embedded database lives in \/var\/tmp\/order-service-[0-9a-f]{12} instead/);
      const privateDir =
        /in (\/var\/tmp\/order-service-[0-9a-f]{12})/.exec(moved ?? '')?.[1] ?? '/nonexistent';
      try {
        // Root's, open to the group postgres only; no file in it readable by others (the binaries' copy, a
        // directory, is the group's to read); no password file left.
        expect(statSync(privateDir).mode & 0o777).toBe(0o750);
        const files = readdirSync(privateDir).filter((name) =>
          statSync(path.join(privateDir, name)).isFile(),
        );
        expect(files).toContain('pg.log');
        expect(files).not.toContainEqual(expect.stringMatching(/password/));
        for (const name of files) {
          expect({ name, others: statSync(path.join(privateDir, name)).mode & 0o007 }).toEqual({
            name,
            others: 0,
          });
        }
        expect(leftovers()).toEqual(before);
      } finally {
        rmSync(privateDir, { recursive: true, force: true });
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('stopping the embedded server', () => {
  it('lets the sessions still open end their work: a statement under way completes, none is cut', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'order-service-stop-'));
    chmodSync(dataDir, 0o755);
    try {
      const server = await startEmbeddedPostgres({
        dataDir,
        warn: () => undefined,
        cluster: `stop-${process.pid}`,
        ephemeral: true,
      });
      const client = new Client({ connectionString: server.url });
      const errors: Error[] = [];
      client.on('error', (error: Error) => errors.push(error));
      await client.connect();
      const stopped = server.stop();
      // What a pool's connection goes through while the service closes: its last work, then its goodbye.
      await expect(client.query('SELECT pg_sleep(0.5), 1 AS n')).resolves.toMatchObject({ rows: [{ n: 1 }] });
      await client.end();
      await stopped;
      expect(errors).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
