import { randomUUID } from 'node:crypto';
import { currentTrace, runInTrace, startSpan } from '../tracing/trace-context';
import { BullMqJobQueue } from './bullmq-job-queue';

/** Against the real Redis of REDIS_URL (CI sets it); nothing to test without one. */
const redisUrl = process.env.REDIS_URL;
const describeWithRedis = redisUrl ? describe : describe.skip;

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
});
