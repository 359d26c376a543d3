import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EmbeddedDatabaseError } from './embedded-database-error';

/** The OS user the server runs as when started by root (PostgreSQL refuses to run as root). */
export interface ServerUser {
  uid: number;
  gid: number;
}

export function runningAsRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** The `postgres` OS user, created (as initdb's packaging does) when it does not exist yet. */
export function postgresUser(): ServerUser {
  const lookUp = (): ServerUser => ({
    uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()),
  });
  try {
    return lookUp();
  } catch {
    try {
      execFileSync('groupadd', ['--system', 'postgres'], { stdio: 'ignore' });
      execFileSync('useradd', ['--system', '--gid', 'postgres', '--no-create-home', 'postgres'], {
        stdio: 'ignore',
      });
      return lookUp();
    } catch {
      throw new EmbeddedDatabaseError(
        'running as root, the embedded PostgreSQL needs a `postgres` OS user and could not create one: ' +
          'create it (useradd --system postgres), run as another user, or set DATABASE_URL',
      );
    }
  }
}

function ancestors(dir: string): string[] {
  const list: string[] = [];
  for (let current = dir; ; current = path.dirname(current)) {
    list.push(current);
    if (path.dirname(current) === current) return list.reverse();
  }
}

/**
 * The first existing directory on the way to `target` that lets no one else through (another user, here the
 * `postgres` OS user, cannot reach `target`), or undefined when the way is open.
 */
export function blockingAncestor(target: string): string | undefined {
  return ancestors(path.resolve(target)).find((dir) => {
    try {
      const stat = fs.statSync(dir);
      return stat.isDirectory() && (stat.mode & 0o001) === 0;
    } catch {
      return false; // Not there yet: created with a traversable mode.
    }
  });
}

/**
 * The private directory of a data directory the `postgres` OS user cannot reach (a clone under a 0700 home
 * or a `mkdir -m 700` parent): outside the clone, named after it, owned by root and readable by the group
 * `postgres` only. It holds a copy of the server's binaries and the data; /var/tmp survives reboots.
 */
export function privateDirectory(dataDir: string, user: ServerUser): string {
  const hash = createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 12);
  const dir = path.join('/var/tmp', `order-service-${hash}`);
  fs.mkdirSync(dir, { recursive: true, mode: 0o750 });
  const stat = fs.lstatSync(dir);
  // /var/tmp is writable by all: a directory someone else made there is not ours to run a server from.
  if (!stat.isDirectory() || stat.uid !== 0) {
    throw new EmbeddedDatabaseError(
      `${dir} exists and is not a directory owned by root: remove it, or set DATA_DIR to a directory the ` +
        'postgres OS user can reach',
    );
  }
  fs.chownSync(dir, 0, user.gid);
  fs.chmodSync(dir, 0o750);
  return dir;
}
