import type { RedisServer } from '../config/app-config';
import { connectRedis, type RedisConnection } from '../redis/redis-connection';

/** What the queues need to know to reach Redis. */
export interface QueueRedisSettings {
  server: RedisServer;
  keyPrefix: string;
}

/**
 * How the queues reach Redis, described in this one place: the key prefix of every queue, the producer
 * connection all the queues of a process share, and each worker's own connection (all made by
 * `connectRedis`: one server or a cluster). Queues and workers are given these connections (BullMQ closes
 * none of them: their owner does).
 */
export interface QueueConnections {
  /**
   * Every BullMQ key of the service starts with it (a run of the tests has its own). Its `{bull}` is a hash
   * tag: on a Redis Cluster only the tag is hashed, so every key of every queue is in one slot, as BullMQ's
   * scripts (which use several keys of a queue together) need.
   */
  prefix: string;
  /**
   * Producers fail fast while Redis is down instead of queueing commands in memory (a request that starts a
   * task is answered, and the task is queued once Redis is back): see `BullMqJobQueue.reachable()`. While a
   * cluster fails over they wait for the replica to take over (`waitForFailover`: a few seconds at most), so
   * what is queued then is queued at once rather than found later by the reconcilers.
   */
  producer(): RedisConnection;
  /** A worker's connection: it may block (BullMQ refuses one with a retry limit); BullMQ adds a copy of it. */
  worker(): RedisConnection;
}

export function queueConnections(redis: QueueRedisSettings): QueueConnections {
  return {
    prefix: queuePrefix(redis.keyPrefix),
    producer: () =>
      connectRedis(redis.server, {
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
        waitForFailover: true,
      }),
    worker: () => connectRedis(redis.server, { maxRetriesPerRequest: null, waitForFailover: true }),
  };
}

/** The BullMQ prefix of the service's queues under REDIS_KEY_PREFIX (see `QueueConnections.prefix`). */
export function queuePrefix(keyPrefix: string): string {
  return `${keyPrefix}:{bull}`;
}
