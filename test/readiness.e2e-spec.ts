import { Queue } from 'bullmq';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as net from 'node:net';
import { IDEMPOTENCY_MAINTENANCE_QUEUE } from '../src/platform/idempotency/idempotency.cleanup';
import { Test } from '@nestjs/testing';
import { JobQueue } from '../src/platform/queue/job-queue';
import { queuePrefix } from '../src/platform/queue/queue-connections';
import { QueueModule } from '../src/platform/queue/queue.module';
import {
  MAINTENANCE_JOBS,
  MAINTENANCE_QUEUE,
  QUIET_SECONDS,
} from '../src/modules/tasks/task-maintenance.service';
import { adminClient } from './support/callers';
import { ApiClient, withIdempotencyKey } from './support/http-client';
import { freePort } from './support/net';
import { privateRedis } from './support/redis';
import { ORDERS } from './support/orders';
import { expectProblem } from './support/problem';
import { bootTestApp, TestApp } from './support/test-app';
import { describeIf } from './support/skip-unless';
import { eventually } from './support/wait';

/**
 * Readiness says whether the pod can serve: PostgreSQL must answer, Redis need not. A private redis-server
 * (never the shared one) is stopped and started again under a running app; it comes back empty (no
 * persistence), as a crashed cache-mode Redis or a failover to an empty replica does. PostgreSQL is taken away
 * by cutting a TCP relay between the app and the run's database.
 */
const redisServer = (() => {
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server']).toString().trim();
  } catch {
    return '';
  }
})();
const describeWithRedis = describeIf(
  redisServer,
  'needs the redis-server command (it starts Redis servers of its own)',
);

function startRedis(port: number): ChildProcess {
  return spawn(
    redisServer,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
}

function accepting(port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) =>
    net
      .connect(port, '127.0.0.1')
      .once('connect', function (this: net.Socket) {
        this.destroy();
        resolve(true);
      })
      .once('error', () => resolve(false)),
  );
}

/** The first value of `probe` that `accept` takes. */
async function until<T>(probe: () => Promise<T>, accept: (value: T) => boolean): Promise<T> {
  return eventually(
    'the state the test waits for',
    async () => {
      const value = await probe();
      return accept(value) ? value : undefined;
    },
    { intervalMs: 250 },
  );
}

const readyOf = (t: TestApp) => () =>
  t.app.inject({ method: 'GET', url: '/ready', headers: { 'accept-language': 'en' } });

describeWithRedis('readiness and tasks while Redis goes away and comes back', () => {
  let t: TestApp;
  let redis: ChildProcess;
  let port: number;
  let admin: ApiClient;
  let ready: ReturnType<typeof readyOf>;

  beforeAll(async () => {
    port = await freePort();
    redis = startRedis(port);
    await until(
      () => accepting(port),
      (ok) => ok,
    );
    t = await bootTestApp(privateRedis(port));
    admin = await adminClient(t);
    ready = readyOf(t);
  });

  afterAll(async () => {
    // Closed while its Redis still answers: a close with Redis gone waits for it (BullMQ's workers).
    await t.close();
    redis.kill('SIGKILL');
  });

  async function stopRedis(): Promise<void> {
    redis.kill('SIGKILL');
    await until(
      () => accepting(port),
      (ok) => !ok,
    );
  }

  it('stays 200 while Redis is down, reporting it down, and serves; up again once it returns', async () => {
    const up = await ready();
    expect(up.statusCode).toBe(200);
    expect(up.json()).toMatchObject({
      status: 'ok',
      details: { database: { status: 'up' }, redis: { status: 'up' }, queue: { status: 'up' } },
    });

    await stopRedis();
    const down = await until(ready, (res) => res.json().details.redis.status === 'down');
    expect(down.statusCode).toBe(200);
    expect(down.json()).toMatchObject({
      status: 'ok',
      info: { database: { status: 'up' } },
      error: { redis: { status: 'down' }, queue: { status: 'down', backend: 'bullmq' } },
      details: { database: { status: 'up' }, redis: { status: 'down' } },
    });
    // The API serves meanwhile: rate limits fail open (no RateLimit headers), orders live in PostgreSQL.
    const list = await admin('GET', `${ORDERS}?size=1`);
    expect(list.statusCode).toBe(200);
    expect(list.headers['ratelimit-limit']).toBeUndefined();

    redis = startRedis(port);
    const back = await until(ready, (res) => res.json().details.redis.status === 'up');
    expect(back.statusCode).toBe(200);
    expect(back.json().error).toEqual({});
  });

  it('a task accepted while Redis is down runs as soon as Redis is back', async () => {
    await stopRedis();
    await until(ready, (res) => res.json().details.redis.status === 'down');
    const today = new Date().toISOString().slice(0, 10);
    const accepted = await admin('POST', '/api/v1/reports/generate', {
      body: { dateFrom: today, dateTo: today },
      headers: withIdempotencyKey(),
    });
    expect(accepted.statusCode).toBe(202);
    const location = String(accepted.headers.location);
    expect((await admin('GET', location)).json()).toMatchObject({ status: 'PENDING' });

    redis = startRedis(port);
    // Well before the reconcile schedule would find it (a task quiet 30 s, checked every 30 s): the service
    // queues what it accepted meanwhile as soon as it reconnects.
    const task = await until(
      async () =>
        (await admin('GET', location)).json<{
          status: string;
          resultUrl?: string;
          createdAt: string;
          completedAt?: string;
        }>(),
      (body) => body.status === 'COMPLETED',
    );
    expect(task).toMatchObject({
      status: 'COMPLETED',
      resultUrl: expect.stringMatching(/^\/api\/v1\/reports\//),
    });
    // Done before the reconciler could have taken it: it looks only at tasks quiet for QUIET_SECONDS.
    const quietFor = (Date.parse(task.completedAt as string) - Date.parse(task.createdAt)) / 1000;
    expect(quietFor).toBeLessThan(QUIET_SECONDS);
  });

  it('a process that starts while Redis is down starts, and is ready', async () => {
    await stopRedis();
    const late = await bootTestApp(privateRedis(port));
    try {
      const res = await readyOf(late)();
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        details: { database: { status: 'up' }, redis: { status: 'down' } },
      });
      // Nothing waited for Redis: it comes back only after this start has returned (below).
    } finally {
      await late.close();
      redis = startRedis(port);
    }
  });

  it('sets up the maintenance schedules again when Redis comes back without its data', async () => {
    const queues = [MAINTENANCE_QUEUE, IDEMPOTENCY_MAINTENANCE_QUEUE].map((name) => {
      const queue = new Queue(name, {
        connection: { host: '127.0.0.1', port, maxRetriesPerRequest: null },
        prefix: queuePrefix(t.config.redis.keyPrefix),
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
      expect(await until(schedulers, (keys) => keys.length === expected.length)).toEqual(expected);

      await stopRedis();
      await until(ready, (res) => res.json().details.redis.status === 'down');
      redis = startRedis(port);
      // Empty at first; the service upserts its schedulers as soon as it has reconnected.
      expect(await until(schedulers, (keys) => keys.length === expected.length)).toEqual(expected);
    } finally {
      await Promise.all(queues.map((queue) => queue.close()));
    }
  });
});

describeWithRedis('a schedule given while Redis is down', () => {
  it('is set up once Redis is reachable, without the caller trying again', async () => {
    const port = await freePort();
    const keyPrefix = `os-schedule-${port}`;
    const module = await Test.createTestingModule({
      imports: [
        QueueModule.forRoot(
          {
            app: { role: 'api' },
            redis: { server: { url: `redis://127.0.0.1:${port}` }, keyPrefix },
            queue: { stalledJobSeconds: 30 },
          },
          ['late'],
        ),
      ],
    }).compile();
    const adapter = module.get(JobQueue);
    let redis: ChildProcess | undefined;
    const queue = new Queue('late', {
      connection: { host: '127.0.0.1', port, maxRetriesPerRequest: null },
      prefix: queuePrefix(keyPrefix),
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
      );
      expect(keys).toEqual(['late.tick']);
    } finally {
      await queue.close();
      await module.close();
      redis?.kill('SIGKILL');
    }
  });
});

/** A TCP relay to the run's database that can be cut (its connections reset, new ones refused) and restored. */
class Relay {
  private server?: net.Server;
  private readonly sockets = new Set<net.Socket>();

  constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  async open(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.once('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.server = server;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.resetAndDestroy();
    await new Promise((resolve) => server?.close(resolve));
  }
}

describe('readiness while PostgreSQL is unreachable', () => {
  let t: TestApp;
  let relay: Relay;

  beforeAll(async () => {
    const database = new URL(process.env.DATABASE_URL as string);
    relay = new Relay(await freePort(), { host: database.hostname, port: Number(database.port || 5432) });
    await relay.open();
    database.host = `127.0.0.1:${relay.port}`;
    t = await bootTestApp({ DATABASE_URL: database.toString() });
  });

  afterAll(async () => {
    await t.close();
    await relay.cut();
  });

  it('is 503 SERVICE_UNAVAILABLE naming the database while it is away, and 200 once it answers again', async () => {
    const ready = readyOf(t);
    expect((await ready()).statusCode).toBe(200);

    await relay.cut();
    const down = await until(ready, (res) => res.statusCode === 503);
    expectProblem(down, 503, 'SERVICE_UNAVAILABLE', {
      status: 503,
      checks: { database: { status: 'down' } },
    });

    await relay.open();
    expect((await until(ready, (res) => res.statusCode === 200)).statusCode).toBe(200);
  });
});
