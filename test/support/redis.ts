import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { redisServer } from '../../src/platform/config/app-config';

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

/** A Redis Cluster of a test's own (scripts/redis-cluster.sh): 3 masters with a replica each. */
export interface PrivateCluster {
  /** Its seeds, as REDIS_CLUSTER_NODES takes them. */
  nodes: string;
  /** Where its nodes keep their configuration, pid files and logs (removed by `stop`). */
  dir: string;
  stop(): void;
}

const CLUSTER_SCRIPT = path.resolve(__dirname, '../../scripts/redis-cluster.sh');

/** Whether this machine can start a cluster (redis-server and redis-cli). */
export const canStartRedisCluster = (() => {
  try {
    execFileSync('sh', ['-c', 'command -v redis-server && command -v redis-cli'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

export function startRedisCluster(): PrivateCluster {
  const said = execFileSync('bash', [CLUSTER_SCRIPT, 'start']).toString();
  const setting = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(said)?.[1] ?? '';
  const dir = setting('REDIS_CLUSTER_DIR');
  return {
    nodes: setting('REDIS_CLUSTER_NODES'),
    dir,
    stop: () => execFileSync('bash', [CLUSTER_SCRIPT, 'stop', dir]),
  };
}
