import IORedis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { currentTrace, runInTrace, startSpan } from '../tracing/trace-context';
import { BullMqJobQueue } from './bullmq-job-queue';
import { JobInterrupted } from './job-queue';

/** Against the real Redis of REDIS_URL (CI sets it); nothing to test without one. */
const redisUrl = process.env.REDIS_URL;
const describeWithRedis = redisUrl ? describe : describe.skip;
// Skipped suites are listed only in verbose runs: say why this one did not run.
if (!redisUrl) process.stdout.write('skipped: BullMqJobQueue: needs REDIS_URL (a Redis server)\n');

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
}

describeWithRedis('BullMqJobQueue', () => {
  const prefix = `os-unit-${randomUUID()}`;
  let queue: BullMqJobQueue;

  afterEach(async () => {
    await queue.close();
  });

  // The queues' keys go with the spec: nothing of it stays in the shared Redis.
  afterAll(async () => {
    const redis = new IORedis(redisUrl as string);
    for (const key of await redis.keys(`${prefix}:*`)) await redis.del(key);
    redis.disconnect();
  });

  it('delivers payloads to the processor in the trace that queued them', async () => {
    queue = new BullMqJobQueue(redisUrl as string, prefix, true);
    const seen: Array<{ n: number; traceId?: string }> = [];
    queue.registerProcessor<{ n: number }>('traced', async (job) => {
      seen.push({ n: job.data.n, traceId: currentTrace()?.traceId });
    });
    queue.start();
    const producer = startSpan(undefined);
    await runInTrace(producer, () => queue.enqueue('traced', 'job', { n: 7 }));
    await until(() => seen.length === 1);
    expect(seen).toEqual([{ n: 7, traceId: producer.traceId }]);
  });

  it('retries a failing job and reports exhaustion once with the payload', async () => {
    queue = new BullMqJobQueue(redisUrl as string, prefix, true);
    const attempts: number[] = [];
    const exhausted: unknown[] = [];
    queue.registerProcessor<{ n: number }>(
      'failing',
      async (job) => {
        attempts.push(job.attempt);
        throw new Error('boom');
      },
      { onExhausted: async (job) => void exhausted.push(job.data) },
    );
    queue.start();
    await queue.enqueue('failing', 'job', { n: 1 }, { attempts: 3, backoffMs: 10 });
    await until(() => exhausted.length === 1);
    expect(attempts).toEqual([1, 2, 3]);
    expect(exhausted).toEqual([{ n: 1 }]);
  });

  it('queues without running in a process whose role runs no workers', async () => {
    queue = new BullMqJobQueue(redisUrl as string, prefix, false);
    const handler = jest.fn(async () => undefined);
    queue.registerProcessor('idle', handler);
    queue.start();
    await queue.enqueue('idle', 'job', {});
    expect(await queue.depth('idle')).toBe(1);
    await new Promise((r) => setTimeout(r, 100));
    expect(handler).not.toHaveBeenCalled();
  });

  it('hands a job back on close without using an attempt; the next worker runs it from the start', async () => {
    queue = new BullMqJobQueue(redisUrl as string, prefix, true, { stalledJobSeconds: 5 });
    const seen: Array<{ attempt: number }> = [];
    queue.registerProcessor('handback', async (job) => {
      seen.push({ attempt: job.attempt });
      if (seen.length > 1) return;
      while (!job.signal.aborted) await new Promise((r) => setTimeout(r, 10));
      throw new JobInterrupted();
    });
    queue.start();
    await queue.enqueue('handback', 'job', {}, { jobId: 'handback-1', attempts: 3 });
    await until(() => seen.length === 1);
    await queue.closeWorkers();
    expect(await queue.jobState('handback', 'handback-1')).toMatch(/^(waiting|delayed)$/);
    await queue.close();

    queue = new BullMqJobQueue(redisUrl as string, prefix, true, { stalledJobSeconds: 5 });
    queue.registerProcessor('handback', async (job) => void seen.push({ attempt: job.attempt }));
    queue.start();
    await until(() => seen.length === 2);
    expect(seen).toEqual([{ attempt: 1 }, { attempt: 1 }]);
    await until(() => false, 200);
    expect(await queue.jobState('handback', 'handback-1')).toBe('completed');
  });

  it('runs a schedule once per interval across two processes sharing the queue', async () => {
    const runs: string[] = [];
    queue = new BullMqJobQueue(redisUrl as string, prefix, true);
    const other = new BullMqJobQueue(redisUrl as string, prefix, true);
    for (const [q, label] of [
      [queue, 'a'],
      [other, 'b'],
    ] as const) {
      q.registerProcessor('scheduled', async (job) => void runs.push(`${label}:${job.name}`));
      await q.schedule('scheduled', 'tick', 300);
      q.start();
    }
    await until(() => false, 1_100);
    await other.close();
    // One scheduler (its id is the queue and the name): about one run per 300 ms, not two.
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(runs.length).toBeLessThanOrEqual(5);
    expect(runs.every((r) => r.endsWith(':tick'))).toBe(true);
  });

  it('answers unknown for a job it never had', async () => {
    queue = new BullMqJobQueue(redisUrl as string, prefix, false);
    expect(await queue.jobState('nothing-here', 'nope')).toBe('unknown');
  });
});
