import * as fs from 'node:fs';
import * as path from 'node:path';

/** What `npm run seed` needs to use the server `npm start` runs: written beside the cluster, owner-only. */
export interface ServerState {
  /** The postmaster's pid (the first line of its postmaster.pid). */
  pid: number;
  port: number;
  /** The process that started it and stops it. */
  ownerPid: number;
}

export function writeServerState(file: string, state: ServerState): void {
  fs.rmSync(file, { force: true });
  fs.writeFileSync(file, `${JSON.stringify(state)}\n`, { mode: 0o600, flag: 'wx' });
}

export function readServerState(file: string): ServerState | undefined {
  try {
    const state = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<ServerState>;
    if (
      typeof state.pid === 'number' &&
      typeof state.port === 'number' &&
      typeof state.ownerPid === 'number'
    ) {
      return state as ServerState;
    }
  } catch {
    // No state (no server of ours), or a file from something else: nothing to use.
  }
  return undefined;
}

export function removeServerState(file: string): void {
  fs.rmSync(file, { force: true });
}

/**
 * The pid of a PostgreSQL server running on `clusterDir` (a reused pid of another program does not count);
 * a pid file left by a server that is gone is removed, or postgres would refuse to start.
 */
export function liveServer(clusterDir: string): number | undefined {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  let pid: number;
  try {
    pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
  if (pid > 0 && isPostgres(pid)) return pid;
  fs.rmSync(pidFile, { force: true });
  return undefined;
}

function isPostgres(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error: unknown) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres');
  } catch {
    return true; // No /proc to ask: trust the pid file.
  }
}
