import { getQueueToken } from '@nestjs/bullmq';
import { Test } from '@nestjs/testing';
import { InProcessJobQueue } from './in-process-job-queue';
import { JobQueue } from './job-queue';
import { QueueModule } from './queue.module';

describe('QueueModule without Redis', () => {
  it('binds the in-process adapter and registers nothing of BullMQ, so nothing connects to a Redis', async () => {
    const context = await Test.createTestingModule({
      imports: [
        QueueModule.forRoot(
          { app: { role: 'all' }, redis: { keyPrefix: 'unused' }, queue: { stalledJobSeconds: 30 } },
          ['some-queue'],
        ),
      ],
    }).compile();
    try {
      const queue = context.get(JobQueue);
      expect(queue).toBeInstanceOf(InProcessJobQueue);
      expect(queue.backend).toBe('in-process');
      expect(() => context.get(getQueueToken('some-queue'), { strict: false })).toThrow();

      // Its processors run in this process once the application has started.
      const ran = new Promise<string>((resolve) =>
        queue.registerProcessor<{ n: number }>('some-queue', async (job) =>
          resolve(`${job.name}:${job.data.n}`),
        ),
      );
      await context.init();
      await queue.enqueue('some-queue', 'job', { n: 1 });
      expect(await ran).toBe('job:1');
    } finally {
      await context.close();
    }
  });
});
