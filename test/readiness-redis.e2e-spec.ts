import { Queue } from 'bullmq';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as net from 'node:net';
import { IDEMPOTENCY_MAINTENANCE_QUEUE } from '../src/idempotency/idempotency.cleanup';
import { BullMqJobQueue } from '../src/queue/bullmq-job-queue';
import { MAINTENANCE_JOBS, MAINTENANCE_QUEUE } from '../src/tasks/task-maintenance.service';
import { freePort } from './support/net';
import { expectProblem } from './support/problem';
import { bootTestApp, TestApp } from './support/test-app';

/**
 * Readiness follows Redis without a restart: a private redis-server (never the shared one) is stopped and
 * started again under a running app. It comes back empty (no persistence), as a crashed cache-mode Redis or
 * a failover to an empty replica does: the queue's job schedulers must come back too.
 */
const redisServer = (() => {
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server']).toString().trim();
  } catch {
    return '';
  }
})();
const describeWithRedis = redisServer ? describe : describe.skip;

function startRedis(port: number): ChildProcess {
  return spawn(
    redisServer,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
}

async function until<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 250));
  }
}

describeWithRedis('readiness while Redis goes away and comes back', () => {
  let t: TestApp;
  let redis: ChildProcess;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    redis = startRedis(port);
    await until(
      () =>
        new Promise<boolean>((r) =>
          net
            .connect(port, '127.0.0.1')
            .once('connect', () => r(true))
            .once('error', () => r(false)),
        ),
      (ok) => ok,
      5_000,
    );
    t = await bootTestApp({ REDIS_URL: `redis://127.0.0.1:${port}` });
  });

  afterAll(async () => {
    redis.kill('SIGKILL');
    await t.close();
  });

  const ready = () => t.app.inject({ method: 'GET', url: '/ready', headers: { 'accept-language': 'en' } });

  it('is 200 with Redis up, 503 problem+json within 5 s of Redis stopping, and 200 again after it returns', async () => {
    expect((await ready()).statusCode).toBe(200);

    redis.kill('SIGKILL');
    const down = await until(ready, (res) => res.statusCode === 503, 5_000);
    expectProblem(down, 503, 'SERVICE_UNAVAILABLE', {
      status: 503,
      checks: { redis: { status: 'down' }, database: { status: 'up' } },
    });

    redis = startRedis(port);
    const up = await until(ready, (res) => res.statusCode === 200, 15_000);
    expect(up.statusCode).toBe(200);
  }, 30_000);

  it('sets up the maintenance schedules again when Redis comes back without its data', async () => {
    const queues = [MAINTENANCE_QUEUE, IDEMPOTENCY_MAINTENANCE_QUEUE].map((name) => {
      const queue = new Queue(name, {
        connection: { host: '127.0.0.1', port, maxRetriesPerRequest: null },
        prefix: `${t.config.redis.keyPrefix}:bull`,
      });
      queue.on('error', () => undefined);
      return queue;
    });
    const schedulers = async () =>
      (await Promise.all(queues.map((queue) => queue.getJobSchedulers().catch(() => []))))
        .flat()
        .map((s) => s.key)
        .sort();
    const expected = [
      ...Object.keys(MAINTENANCE_JOBS).map((name) => `${MAINTENANCE_QUEUE}.${name}`),
      `${IDEMPOTENCY_MAINTENANCE_QUEUE}.purge-expired`,
    ].sort();
    try {
      expect(await until(schedulers, (keys) => keys.length === expected.length, 10_000)).toEqual(expected);

      redis.kill('SIGKILL');
      await until(ready, (res) => res.statusCode === 503, 5_000);
      redis = startRedis(port);
      // Empty at first; the service upserts its schedulers as soon as it has reconnected.
      expect(await until(schedulers, (keys) => keys.length === expected.length, 15_000)).toEqual(expected);
    } finally {
      await Promise.all(queues.map((queue) => queue.close()));
    }
  }, 40_000);
});

describeWithRedis('a schedule given while Redis is down', () => {
  it('is set up once Redis is reachable, without the caller trying again', async () => {
    const port = await freePort();
    const prefix = `os-schedule-${port}`;
    const adapter = new BullMqJobQueue(`redis://127.0.0.1:${port}`, prefix, false);
    let redis: ChildProcess | undefined;
    const queue = new Queue('late', {
      connection: { host: '127.0.0.1', port, maxRetriesPerRequest: null },
      prefix,
    });
    queue.on('error', () => undefined);
    try {
      // Given while nothing listens on the port yet.
      const scheduled = adapter.schedule('late', 'tick', 60_000);
      redis = startRedis(port);
      await scheduled;
      const keys = await until(
        async () => (await queue.getJobSchedulers().catch(() => [])).map((s) => s.key),
        (found) => found.length > 0,
        15_000,
      );
      expect(keys).toEqual(['late.tick']);
    } finally {
      await queue.close();
      await adapter.close();
      redis?.kill('SIGKILL');
    }
  }, 30_000);
});
