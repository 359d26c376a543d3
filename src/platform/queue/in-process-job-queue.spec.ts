import { currentTrace, runInTrace, startSpan } from '../tracing/trace-context';
import { InProcessJobQueue } from './in-process-job-queue';
import { until } from '../../../test/support/wait';
import { JobInterrupted } from './job-queue';

/** A pause for what must NOT happen (a wait for a condition cannot show an absence), and inside handlers. */
const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

describe('InProcessJobQueue', () => {
  it('runs queued jobs once workers start, deduplicating by job id', async () => {
    const queue = new InProcessJobQueue(true);
    const seen: string[] = [];
    queue.registerProcessor<{ n: number }>('q', async (job) => {
      seen.push(`${job.name}:${job.data.n}`);
    });
    await queue.enqueue('q', 'a', { n: 1 }, { jobId: 'same' });
    await queue.enqueue('q', 'a', { n: 2 }, { jobId: 'same' });
    await queue.enqueue('q', 'b', { n: 3 });
    expect(await queue.depth('q')).toBe(2);
    queue.start();
    await until('both jobs ran', () => seen.length === 2);
    await queue.close();
    expect(seen).toEqual(['a:1', 'b:3']);
  });

  it('retries with backoff and reports exhaustion once', async () => {
    const queue = new InProcessJobQueue(true);
    const attempts: number[] = [];
    const exhausted = jest.fn(async () => undefined);
    queue.registerProcessor(
      'q',
      async (job) => {
        attempts.push(job.attempt);
        throw new Error('boom');
      },
      { onExhausted: exhausted },
    );
    queue.start();
    await queue.enqueue('q', 'x', {}, { attempts: 3, backoffMs: 1 });
    await until('the job is exhausted', () => exhausted.mock.calls.length > 0);
    expect(attempts).toEqual([1, 2, 3]);
    expect(exhausted).toHaveBeenCalledTimes(1);
    await queue.close();
  });

  it('takes no jobs in a process whose role runs no workers', async () => {
    const queue = new InProcessJobQueue(false);
    const handler = jest.fn(async () => undefined);
    queue.registerProcessor('q', handler);
    queue.start();
    await queue.enqueue('q', 'x', {});
    await tick(20);
    expect(handler).not.toHaveBeenCalled();
    await queue.close();
  });

  it('waits for running jobs on close and refuses new ones', async () => {
    const queue = new InProcessJobQueue(true);
    let started = false;
    let finished = false;
    queue.registerProcessor('q', async () => {
      started = true;
      await tick(30);
      finished = true;
    });
    queue.start();
    await queue.enqueue('q', 'x', {});
    await until('the job runs', () => started);
    await queue.close();
    expect(finished).toBe(true);
    await expect(queue.enqueue('q', 'y', {})).rejects.toThrow('closed');
  });

  it('runs a job in a new span of the trace that queued it', async () => {
    const queue = new InProcessJobQueue(true);
    const producer = startSpan(undefined);
    let seen: { traceId?: string; spanId?: string } = {};
    queue.registerProcessor('q', async () => {
      seen = { traceId: currentTrace()?.traceId, spanId: currentTrace()?.spanId };
    });
    queue.start();
    await runInTrace(producer, () => queue.enqueue('q', 'x', {}));
    await until('the job ran', () => seen.traceId !== undefined);
    expect(seen.traceId).toBe(producer.traceId);
    expect(seen.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(seen.spanId).not.toBe(producer.spanId);
    await queue.close();
  });

  it('knows where a job is, and forgets it once it ended', async () => {
    const queue = new InProcessJobQueue(true);
    let release: () => void = () => undefined;
    queue.registerProcessor('q', () => new Promise<void>((resolve) => (release = resolve)));
    await queue.enqueue('q', 'x', {}, { jobId: 'j1' });
    expect(await queue.jobState('q', 'j1')).toBe('waiting');
    queue.start();
    await until('the job is active', async () => (await queue.jobState('q', 'j1')) === 'active');
    release();
    await until('the job is forgotten', async () => (await queue.jobState('q', 'j1')) === 'unknown');
    await queue.close();
  });

  it('tells running handlers to stop on close; an interrupted job is not retried nor exhausted', async () => {
    const queue = new InProcessJobQueue(true);
    const exhausted = jest.fn(async () => undefined);
    let runs = 0;
    queue.registerProcessor(
      'q',
      async (job) => {
        runs += 1;
        while (!job.signal.aborted) await tick(2);
        throw new JobInterrupted();
      },
      { onExhausted: exhausted },
    );
    queue.start();
    await queue.enqueue('q', 'x', {}, { attempts: 3, backoffMs: 1 });
    await until('the handler runs', () => runs === 1);
    await queue.close();
    expect(runs).toBe(1);
    expect(exhausted).not.toHaveBeenCalled();
  });

  it('runs scheduled jobs every interval once workers run, one at a time per schedule', async () => {
    const queue = new InProcessJobQueue(true);
    const names: string[] = [];
    queue.registerProcessor('maintenance', async (job) => void names.push(job.name));
    await queue.schedule('maintenance', 'sweep', 10);
    await tick(30);
    expect(names).toEqual([]); // not started yet
    queue.start();
    await until('the schedule ran twice', () => names.length >= 2);
    expect(new Set(names)).toEqual(new Set(['sweep']));
    await queue.close();
  });
});
