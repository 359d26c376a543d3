import { redisServer } from '../../src/config/app-config';

/**
 * The run's Redis as the service reads it: REDIS_URL (one server) or REDIS_CLUSTER_NODES (a cluster), or
 * undefined when the run has none (in-process queue, in-memory counters).
 */
export const runRedis = redisServer(process.env);

/** Whether the run's Redis is a cluster (REDIS_CLUSTER_NODES). */
export const onRedisCluster = runRedis !== undefined && 'clusterNodes' in runRedis;

/** Settings for an app of a test that brings its own redis-server: that server instead of the run's Redis. */
export function privateRedis(port: number): Record<string, string | undefined> {
  return { REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_CLUSTER_NODES: undefined };
}

/** Settings for an app with no Redis at all (in-process queue, in-memory counters), whatever the run has. */
export const NO_REDIS: Record<string, undefined> = { REDIS_URL: undefined, REDIS_CLUSTER_NODES: undefined };
