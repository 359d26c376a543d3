import IORedis, { type RedisOptions } from 'ioredis';

/** What the queues need to know to reach Redis. */
export interface QueueRedisSettings {
  url: string;
  keyPrefix: string;
}

/**
 * How the queues reach Redis, described in this one place: the key prefix of every queue, the producer
 * connection all the queues of a process share, and each worker's own connection. Queues and workers are
 * given these connections (BullMQ closes none of them: their owner does).
 */
export interface QueueConnections {
  /** Every BullMQ key of the service starts with it (a run of the tests has its own). */
  prefix: string;
  /**
   * Producers fail fast while Redis is down instead of queueing commands in memory (a request that starts a
   * task is answered, and the task is queued once Redis is back): see `BullMqJobQueue.reachable()`.
   */
  producer(): IORedis;
  /** A worker's connection: it may block (BullMQ refuses one with a retry limit); BullMQ adds a copy of it. */
  worker(): IORedis;
}

export function queueConnections(redis: QueueRedisSettings): QueueConnections {
  const connect = (options: RedisOptions) => {
    const connection = new IORedis(redis.url, options);
    connection.on('error', () => undefined);
    return connection;
  };
  return {
    prefix: `${redis.keyPrefix}:bull`,
    producer: () => connect({ maxRetriesPerRequest: 1, enableOfflineQueue: false }),
    worker: () => connect({ maxRetriesPerRequest: null }),
  };
}
