import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { Cluster } from 'ioredis';
import { REDIS_CLIENT, type RedisClient } from '../redis/redis.module';

const PING_TIMEOUT_MS = 1_500;

/** What a cluster says of itself (CLUSTER INFO, CLUSTER NODES), as `/ready` shows it. */
export interface ClusterState {
  /** `ok` when every slot is served; `fail` while a master is down and not yet replaced. */
  state: string;
  /** Nodes that are masters (a failed master stays one until it comes back as a replica)... */
  masters: number;
  /** ...and those of them not flagged as failing. */
  mastersUp: number;
}

@Injectable()
export class RedisHealthIndicator {
  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: RedisClient,
    private readonly indicators: HealthIndicatorService,
  ) {}

  /**
   * One server: up when it answers PING. A cluster: up when the node asked says the cluster is `ok`; the
   * body says how many masters it has and how many of them are up.
   */
  async check(key: string): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check(key);
    const redis = this.redis;
    if (!redis) return indicator.down({ message: 'Redis is not configured' });
    const mode = redis instanceof Cluster ? 'cluster' : 'external';
    try {
      if (!(redis instanceof Cluster)) {
        await withTimeout(redis.ping());
        return indicator.up({ mode });
      }
      const cluster = await withTimeout(clusterState(redis));
      return cluster.state === 'ok'
        ? indicator.up({ mode, ...cluster })
        : indicator.down({ mode, ...cluster, message: `cluster state ${cluster.state}` });
    } catch (error) {
      return indicator.down({ mode, message: error instanceof Error ? error.message : 'unreachable' });
    }
  }
}

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS).unref(),
    ),
  ]);
}

/** Asked of one node (whichever the client picks): its view of the cluster. */
export async function clusterState(cluster: Cluster): Promise<ClusterState> {
  const [info, nodes] = await Promise.all([
    cluster.cluster('INFO') as Promise<string>,
    cluster.cluster('NODES') as Promise<string>,
  ]);
  const state = /^cluster_state:(\w+)/m.exec(info)?.[1] ?? 'unknown';
  // A CLUSTER NODES line: <id> <ip:port@bus> <flags,...> <master id> <ping> <pong> <epoch> <link> <slots...>
  const masters = nodes
    .split('\n')
    .map((line) => line.split(' ')[2]?.split(',') ?? [])
    .filter((flags) => flags.includes('master'));
  const failing = (flags: string[]) => flags.includes('fail') || flags.includes('fail?');
  return { state, masters: masters.length, mastersUp: masters.filter((flags) => !failing(flags)).length };
}
