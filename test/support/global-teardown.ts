import { Socket } from 'node:net';
import { Client } from 'pg';
import { redisServer } from '../../src/platform/config/app-config';
import { connectRedis, deleteKeys } from '../../src/platform/redis/redis-connection';

/**
 * Undoes what the setup made: the run's database or embedded server, and every Redis key of the run (on each
 * master of a cluster).
 */
export default async function globalTeardown(): Promise<void> {
  endIfHeldOpen();
  const state = globalThis.__E2E__;
  if (state?.embedded) await state.embedded.stop();
  if (state?.adminUrl && state.database) {
    const admin = new Client({ connectionString: state.adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${state.database} WITH (FORCE)`);
    await admin.end();
  }
  const server = redisServer(process.env);
  if (server && process.env.REDIS_KEY_PREFIX) {
    const redis = connectRedis(server, {});
    try {
      await deleteKeys(redis, `${process.env.REDIS_KEY_PREFIX}*`);
    } finally {
      redis.disconnect();
    }
  }
}

/**
 * How long the run may stay alive after its last test before what holds it open is reported and the run ends.
 * Not a bound on any test: the results are in by then (Jest keeps its exit status on `exit`).
 */
const HELD_OPEN_GRACE_MS = 30_000;

/**
 * A handle a test left open (a socket, a child process, a reconnecting client) would keep the run from ever
 * ending: a run still alive after the grace names what keeps it (by kind: Node's public view of them) as a
 * leak to fix, and ends. The timer itself never keeps the process alive.
 */
function endIfHeldOpen(): void {
  setTimeout(() => {
    const open = process.getActiveResourcesInfo().filter((kind) => kind !== 'Timeout');
    process.stderr.write(
      `e2e teardown: the run was still held open ${HELD_OPEN_GRACE_MS / 1000} s after its last test, by: ` +
        `${open.join(', ') || 'nothing Node names'}${socketPeers()}; a test leaked it (find it with ` +
        '--detectOpenHandles)\n',
    );
    process.exit();
  }, HELD_OPEN_GRACE_MS).unref();
}

/**
 * The peers of the sockets still open (which server's client leaked: PostgreSQL, Redis, a receiver). Node's
 * public view names kinds only; its list of handles is the one place that has the sockets themselves.
 */
function socketPeers(): string {
  const handles = (process as unknown as { _getActiveHandles?: () => unknown[] })._getActiveHandles?.() ?? [];
  const peers = handles
    .filter((handle): handle is Socket => handle instanceof Socket && handle.remotePort !== undefined)
    .map((socket) => `${socket.remoteAddress}:${socket.remotePort}`);
  return peers.length > 0 ? ` (sockets to ${peers.join(', ')})` : '';
}
