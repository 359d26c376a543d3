import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { RedisServer } from '../config/app-config';

/** A connection to the service's Redis: a client of one server, or of a Redis Cluster. */
export type RedisConnection = Redis | Cluster;

/** How a connection behaves, in `RedisOptions` terms, and what it does while a cluster fails over. */
export interface RedisConnectOptions extends RedisOptions {
  /**
   * On a cluster, a command to the slots of a master that has failed is tried again until its replica has
   * taken over (within about FAILOVER_WAIT_MS), instead of failing at once. Without it the caller falls back
   * at once, as when Redis is down (rate limits fail open); it finds the new master once the client has
   * refreshed the cluster's slots (on the failed connection and every few seconds).
   */
  waitForFailover?: boolean;
}

/**
 * Every Redis connection of the service is made here, from the settings: `REDIS_URL` gives a `Redis`,
 * `REDIS_CLUSTER_NODES` a `Cluster` that learns the cluster's nodes from those seeds and follows its slots.
 * For a cluster the options that belong to the cluster client (offline queue, auto-pipelining, the reconnect
 * strategy) go there, the rest to each node's connection. Errors are the callers' to see in their commands:
 * the connection's own `error` events (a refused reconnect) are not logged here.
 */
export function connectRedis(server: RedisServer, options: RedisConnectOptions): RedisConnection {
  const { waitForFailover = false, ...redisOptions } = options;
  const connection =
    'url' in server
      ? new Redis(server.url, redisOptions)
      : new Cluster(server.clusterNodes, clusterOptions(redisOptions, waitForFailover));
  connection.on('error', () => undefined);
  return connection;
}

/**
 * A master that fails takes the cluster's node timeout and an election to be replaced by its replica (a few
 * seconds with a node timeout of a second or two): a connection that waits for it tries a command to its slots
 * again every RETRY_DELAY_MS, at most MAX_REDIRECTIONS times, then fails (its caller falls back: a task waits
 * in PostgreSQL). MOVED and ASK redirections (slots moving) count against the same bound.
 */
const RETRY_DELAY_MS = 250;
const MAX_REDIRECTIONS = 24;
export const FAILOVER_WAIT_MS = RETRY_DELAY_MS * MAX_REDIRECTIONS;

function clusterOptions(options: RedisOptions, waitForFailover: boolean): ClusterOptions {
  const { enableOfflineQueue, enableAutoPipelining, retryStrategy, ...nodeOptions } = options;
  // 0 turns ioredis's retries on a closed connection or CLUSTERDOWN off: the command fails at once.
  const retryDelay = waitForFailover ? RETRY_DELAY_MS : 0;
  return {
    enableOfflineQueue,
    enableAutoPipelining,
    clusterRetryStrategy: retryStrategy,
    retryDelayOnFailover: retryDelay,
    retryDelayOnClusterDown: retryDelay,
    retryDelayOnTryAgain: RETRY_DELAY_MS,
    maxRedirections: MAX_REDIRECTIONS,
    redisOptions: nodeOptions,
  };
}

/** The servers that hold the keys: the one server, or each master of a cluster (for a SCAN). */
export function keyServers(connection: RedisConnection): Redis[] {
  return connection instanceof Cluster ? connection.nodes('master') : [connection];
}

/**
 * Deletes every key matching `pattern` (a SCAN pattern: `order-service:*`), on every master of a cluster.
 * One key a command, so keys of different slots never meet in one.
 */
export async function deleteKeys(connection: RedisConnection, pattern: string): Promise<number> {
  // A cluster client knows its masters once it is ready.
  if (connection instanceof Cluster && connection.status !== 'ready') {
    await new Promise((resolve) => connection.once('ready', resolve));
  }
  let deleted = 0;
  for (const server of keyServers(connection)) {
    let cursor = '0';
    do {
      const [next, keys] = await server.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      await Promise.all(keys.map((key) => connection.unlink(key)));
      deleted += keys.length;
      cursor = next;
    } while (cursor !== '0');
  }
  return deleted;
}
