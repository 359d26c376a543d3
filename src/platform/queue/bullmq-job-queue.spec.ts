import { Test } from '@nestjs/testing';
import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { type AppRole, redisServer } from '../config/app-config';
import { connectRedis, deleteKeys } from '../redis/redis-connection';
import { currentTrace, runInTrace, startSpan } from '../tracing/trace-context';
import { BullMqJobQueue } from './bullmq-job-queue';
import { JobInterrupted, JobQueue } from './job-queue';
import { queuePrefix } from './queue-connections';
import { QueueModule } from './queue.module';
import { until } from '../../../test/support/wait';

/** Against the real Redis of REDIS_URL or the cluster of REDIS_CLUSTER_NODES (CI sets them); nothing to test without one. */
const server = redisServer(process.env);
const describeWithRedis = server ? describe : describe.skip;
// Skipped suites are listed only in verbose runs: say why this one did not run.
if (!server) {
  process.stdout.write('skipped: BullMqJobQueue: needs REDIS_URL or REDIS_CLUSTER_NODES (a Redis server)\n');
}

describeWithRedis('BullMqJobQueue', () => {
  const keyPrefix = `os-unit-${randomUUID()}`;
  const running: Array<{ close(): Promise<void> }> = [];

  /**
   * The queue module of a process in `role`, as the application builds it (@nestjs/bullmq's BullModule);
   * `register` registers processors and schedules before the workers start, as modules do when they init.
   */
  async function queueProcess(
    role: AppRole,
    queues: string[],
    register: (queue: JobQueue) => Promise<void> | void = () => undefined,
    stalledJobSeconds = 30,
  ): Promise<{ queue: JobQueue; close(): Promise<void> }> {
    const context = await Test.createTestingModule({
      imports: [
        QueueModule.forRoot(
          { app: { role }, redis: { server, keyPrefix }, queue: { stalledJobSeconds } },
          queues,
        ),
      ],
    }).compile();
    const queue = context.get(JobQueue);
    await register(queue);
    await context.init();
    const process = { queue, close: () => context.close() };
    running.push(process);
    return process;
  }

  /** Workers BullMQ sees taking jobs from `name`, in every process. */
  async function workersOf(name: string): Promise<number> {
    const connection = connectRedis(server!, { maxRetriesPerRequest: null });
    const queue = new Queue(name, { connection, prefix: queuePrefix(keyPrefix) });
    try {
      return await queue.getWorkersCount();
    } finally {
      await queue.close();
      connection.disconnect();
    }
  }

  afterEach(async () => {
    for (const process of running.splice(0)) await process.close();
  });

  // The queues' keys go with the spec: nothing of it stays in the shared Redis.
  afterAll(async () => {
    const redis = connectRedis(server!, {});
    await deleteKeys(redis, `${keyPrefix}:*`);
    redis.disconnect();
  });

  it('is the adapter of the port when Redis is configured', async () => {
    const { queue } = await queueProcess('api', ['any']);
    expect(queue).toBeInstanceOf(BullMqJobQueue);
    expect(queue.backend).toBe('bullmq');
  });

  it('delivers payloads to the processor in the trace that queued them', async () => {
    const seen: Array<{ n: number; traceId?: string }> = [];
    const { queue } = await queueProcess('worker', ['traced'], (q) =>
      q.registerProcessor<{ n: number }>('traced', async (job) => {
        seen.push({ n: job.data.n, traceId: currentTrace()?.traceId });
      }),
    );
    const producer = startSpan(undefined);
    await runInTrace(producer, () => queue.enqueue('traced', 'job', { n: 7 }));
    await until('the job ran', () => seen.length === 1);
    expect(seen).toEqual([{ n: 7, traceId: producer.traceId }]);
  });

  it('retries a failing job and reports exhaustion once with the payload', async () => {
    const attempts: number[] = [];
    const exhausted: unknown[] = [];
    const { queue } = await queueProcess('all', ['failing'], (q) =>
      q.registerProcessor<{ n: number }>(
        'failing',
        async (job) => {
          attempts.push(job.attempt);
          throw new Error('boom');
        },
        { onExhausted: async (job) => void exhausted.push(job.data) },
      ),
    );
    await queue.enqueue('failing', 'job', { n: 1 }, { attempts: 3, backoffMs: 10 });
    await until('the job is exhausted', () => exhausted.length === 1);
    expect(attempts).toEqual([1, 2, 3]);
    expect(exhausted).toEqual([{ n: 1 }]);
  });

  it('runs its processors with their concurrency', async () => {
    let active = 0;
    let most = 0;
    let done = 0;
    const { queue } = await queueProcess('worker', ['parallel'], (q) =>
      q.registerProcessor(
        'parallel',
        async () => {
          active += 1;
          most = Math.max(most, active);
          await until('three jobs run at once', () => active === 3 || done > 0);
          active -= 1;
          done += 1;
        },
        { concurrency: 3 },
      ),
    );
    for (let i = 0; i < 3; i += 1) await queue.enqueue('parallel', 'job', {});
    await until('all three jobs ran', () => done === 3);
    expect(most).toBe(3);
  });

  it('queues without a worker in a process whose role runs no workers', async () => {
    const handler = jest.fn(async () => undefined);
    const { queue } = await queueProcess('api', ['idle'], (q) => q.registerProcessor('idle', handler));
    await queue.enqueue('idle', 'job', {});
    expect(await queue.depth('idle')).toBe(1);
    expect(await workersOf('idle')).toBe(0);
    expect(handler).not.toHaveBeenCalled();

    // The same module in the worker role runs one, which takes the job.
    await queueProcess('worker', ['idle'], (q) => q.registerProcessor('idle', handler));
    expect(await workersOf('idle')).toBe(1);
    await until('the worker took the job', () => handler.mock.calls.length === 1);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('refuses a processor or a job for a queue it was not given', async () => {
    const { queue } = await queueProcess('api', ['known']);
    expect(() => queue.registerProcessor('unknown', async () => undefined)).toThrow(/unknown/);
    await expect(queue.enqueue('unknown', 'job', {})).rejects.toThrow(/unknown/);
  });

  it('hands a job back on shutdown without using an attempt; the next worker runs it from the start', async () => {
    const seen: Array<{ attempt: number }> = [];
    const first = await queueProcess(
      'worker',
      ['handback'],
      (q) =>
        q.registerProcessor('handback', async (job) => {
          seen.push({ attempt: job.attempt });
          while (!job.signal.aborted) await new Promise((r) => setTimeout(r, 10));
          throw new JobInterrupted();
        }),
      5,
    );
    await first.queue.enqueue('handback', 'job', {}, { jobId: 'handback-1', attempts: 3 });
    await until('the first worker took the job', () => seen.length === 1);
    await first.close();
    const { queue: inspector } = await queueProcess('api', ['handback']);
    expect(await inspector.jobState('handback', 'handback-1')).toMatch(/^(waiting|delayed)$/);

    await queueProcess(
      'worker',
      ['handback'],
      (q) => q.registerProcessor('handback', async (job) => void seen.push({ attempt: job.attempt })),
      5,
    );
    await until('the next worker ran the job', () => seen.length === 2);
    expect(seen).toEqual([{ attempt: 1 }, { attempt: 1 }]);
    await until(
      'the job is completed',
      async () => (await inspector.jobState('handback', 'handback-1')) === 'completed',
    );
    expect(await inspector.jobState('handback', 'handback-1')).toBe('completed');
  });

  it('runs a schedule once per interval across two processes sharing the queue', async () => {
    const runs: Array<{ label: string; id: string; name: string }> = [];
    for (const label of ['a', 'b']) {
      await queueProcess('worker', ['scheduled'], async (q) => {
        q.registerProcessor(
          'scheduled',
          async (job) => void runs.push({ label, id: job.id, name: job.name }),
        );
        await q.schedule('scheduled', 'tick', 300);
      });
    }
    await until('three runs', () => runs.length >= 3);
    // One scheduler (its id is the queue and the name): each run is its own slot of that one scheduler, never
    // a slot run twice, nor a second scheduler's.
    const ids = runs.map((run) => run.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.replace(/:\d+$/, '')))).toEqual(new Set([ids[0].replace(/:\d+$/, '')]));
    expect(runs.every((run) => run.name === 'tick')).toBe(true);
  });

  it('answers unknown for a job it never had', async () => {
    const { queue } = await queueProcess('api', ['nothing-here']);
    expect(await queue.jobState('nothing-here', 'nope')).toBe('unknown');
  });
});
