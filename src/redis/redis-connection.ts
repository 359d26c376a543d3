import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { RedisServer } from '../config/app-config';

/** A connection to the service's Redis: a client of one server, or of a Redis Cluster. */
export type RedisConnection = Redis | Cluster;

/**
 * Every Redis connection of the service is made here, from the settings: `REDIS_URL` gives a `Redis`,
 * `REDIS_CLUSTER_NODES` a `Cluster` that learns the cluster's nodes from those seeds and follows its slots.
 * Callers say how a connection behaves in `RedisOptions` terms; for a cluster the options that belong to the
 * cluster client (offline queue, auto-pipelining, the reconnect strategy) go there, the rest to each node's
 * connection. Errors are the callers' to see in their commands: the connection's own `error` events (a refused
 * reconnect) are not logged here.
 */
export function connectRedis(server: RedisServer, options: RedisOptions): RedisConnection {
  const connection =
    'url' in server ? new Redis(server.url, options) : new Cluster(server.clusterNodes, clusterOptions(options));
  connection.on('error', () => undefined);
  return connection;
}

/**
 * A master that fails takes the cluster's node timeout and an election to be replaced by its replica: a
 * command to its slots is tried again meanwhile (connection closed, CLUSTERDOWN, TRYAGAIN) every
 * RETRY_DELAY_MS, up to MAX_REDIRECTIONS times, before it fails (and its caller falls back: rate limits fail
 * open, a task waits in PostgreSQL).
 */
const RETRY_DELAY_MS = 200;
const MAX_REDIRECTIONS = 16;

function clusterOptions(options: RedisOptions): ClusterOptions {
  const { enableOfflineQueue, enableAutoPipelining, retryStrategy, ...nodeOptions } = options;
  return {
    enableOfflineQueue,
    enableAutoPipelining,
    clusterRetryStrategy: retryStrategy,
    retryDelayOnFailover: RETRY_DELAY_MS,
    retryDelayOnClusterDown: RETRY_DELAY_MS,
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
