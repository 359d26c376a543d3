import {
  BeforeApplicationShutdown,
  DynamicModule,
  Inject,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  Provider,
} from '@nestjs/common';
import { BullModule, getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import type { AppConfig } from '../config/app-config';
import { BullMqJobQueue } from './bullmq-job-queue';
import { bullMqQueueWorker, QueueWorker } from './bullmq-queue-worker';
import { InProcessJobQueue } from './in-process-job-queue';
import { JobQueue } from './job-queue';
import type { RedisConnection } from '../redis/redis-connection';
import { queueConnections } from './queue-connections';

/** What QueueModule is built from: where Redis is (if anywhere), the role, the stall timing. */
export type QueueSettings = Pick<AppConfig, 'redis' | 'queue'> & { app: Pick<AppConfig['app'], 'role'> };

/** The producer connection the BullMQ queues of a process share. */
const QUEUE_CONNECTION = Symbol('QUEUE_CONNECTION');
/** The workers of this process (BullMQ's `WorkerHost`s): none without Redis or in the `api` role. */
const QUEUE_WORKERS = Symbol('QUEUE_WORKERS');

/**
 * Binds the job-queue port. Without Redis (neither REDIS_URL nor REDIS_CLUSTER_NODES): the in-process adapter
 * (no BullModule at all, so nothing connects to a Redis that is not there). With one: @nestjs/bullmq's BullModule, a queue for each of `queues`
 * (producers, in every role), and, only where the role runs workers, a `@Processor` worker for each.
 */
@Module({})
export class QueueModule implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  static forRoot(settings: QueueSettings, queues: readonly string[]): DynamicModule {
    const runsWorkers = settings.app.role !== 'api';
    const module = { module: QueueModule, global: true, exports: [JobQueue] };
    const server = settings.redis.server;
    if (!server) {
      return {
        ...module,
        providers: [
          { provide: JobQueue, useFactory: () => new InProcessJobQueue(runsWorkers) },
          { provide: QUEUE_WORKERS, useValue: [] },
        ],
      };
    }
    const connections = queueConnections({ server, keyPrefix: settings.redis.keyPrefix });
    const stalledMs = settings.queue.stalledJobSeconds * 1_000;
    const workerQueues = runsWorkers ? queues : [];
    const workerToken = (queue: string) => `BullMqQueueWorker:${queue}`;
    const workers: Provider[] = workerQueues.map((queue) => ({
      provide: workerToken(queue),
      inject: [BullMqJobQueue],
      useFactory: (jobs: BullMqJobQueue) =>
        bullMqQueueWorker(queue, jobs, {
          connection: connections.worker(),
          // Started by `onApplicationBootstrap`, once every processor has registered.
          autorun: false,
          // A job whose worker died (killed, partitioned) stays claimed this long before another worker
          // takes it over: the lock lives this long and is renewed at half of it; stalled jobs are looked
          // for this often.
          lockDuration: stalledMs,
          stalledInterval: stalledMs,
          // A job whose worker died twice is failed rather than taken over forever.
          maxStalledCount: 2,
        }),
    }));
    const providers: Provider[] = [
      { provide: QUEUE_CONNECTION, useFactory: connections.producer },
      {
        provide: BullMqJobQueue,
        inject: [QUEUE_CONNECTION, ...queues.map((queue) => getQueueToken(queue))],
        useFactory: (connection: RedisConnection, ...bullQueues: Queue[]) =>
          new BullMqJobQueue(connection, bullQueues),
      },
      { provide: JobQueue, useExisting: BullMqJobQueue },
      ...workers,
      {
        provide: QUEUE_WORKERS,
        inject: workerQueues.map(workerToken),
        useFactory: (...hosts: QueueWorker[]) => hosts,
      },
    ];
    return {
      ...module,
      imports: [
        BullModule.forRootAsync({
          // Set up without waiting for Redis or asking its version: a queue is used only once Redis answers
          // (`BullMqJobQueue.reachable()`), and the workers check the version on their own connections.
          useFactory: (connection: RedisConnection) => ({
            connection,
            prefix: connections.prefix,
            skipWaitingForReady: true,
            skipVersionCheck: true,
          }),
          inject: [QUEUE_CONNECTION],
        }),
        BullModule.registerQueue(...queues.map((name) => ({ name }))),
      ],
      providers,
      // BullModule's shared configuration takes the connection from here.
      exports: [...module.exports, QUEUE_CONNECTION],
    };
  }

  constructor(
    @Inject(JobQueue) private readonly queue: JobQueue,
    @Inject(QUEUE_WORKERS) private readonly workers: readonly QueueWorker[],
  ) {}

  /** Processors register in onModuleInit; workers start once every module is ready. */
  onApplicationBootstrap(): void {
    const adapter = this.queue;
    if (adapter instanceof BullMqJobQueue) adapter.start(this.workers);
    else if (adapter instanceof InProcessJobQueue) adapter.start();
  }

  /** Stop taking jobs before the HTTP server and the database close. */
  async beforeApplicationShutdown(): Promise<void> {
    const adapter = this.queue;
    if (adapter instanceof BullMqJobQueue) await adapter.closeWorkers();
    else if (adapter instanceof InProcessJobQueue) await adapter.close();
  }

  async onApplicationShutdown(): Promise<void> {
    const adapter = this.queue;
    if (adapter instanceof BullMqJobQueue || adapter instanceof InProcessJobQueue) await adapter.close();
  }
}
