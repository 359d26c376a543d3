import { ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { customerClient } from './support/callers';
import { ApiClient } from './support/http-client';
import { freePort } from './support/net';
import { PROBLEM_JSON } from './support/problem';
import { seedCustomer, seedOrders, seedProduct } from './support/seed';
import { bootTestApp, TestApp } from './support/test-app';
import { describeIf } from './support/skip-unless';
import { answers200, eventually } from './support/wait';
import { runRedis } from './support/redis';

/**
 * The `worker` role as a process of its own (`node dist/src/worker.js`) beside an `api`-role app, sharing
 * PostgreSQL and Redis: its operational endpoints, and exports that survive the worker being killed
 * (SIGKILL: BullMQ's stall detection hands the job to the next worker) or stopped (SIGTERM: the running
 * job goes back to the queue at once). Needs Redis: the in-process queue has no second process.
 */
const ROOT = path.resolve(__dirname, '..');
const describeWithRedis = describeIf(
  runRedis,
  'needs REDIS_URL or REDIS_CLUSTER_NODES (a second process shares the queue)',
);

interface Worker {
  child: ChildProcess;
  port: number;
  output: () => string;
}

async function startWorker(): Promise<Worker> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/src/worker.js'], {
    cwd: ROOT,
    env: {
      ...process.env,
      APP_ROLE: 'worker',
      PORT: String(port),
      HOST: '127.0.0.1',
      // Quick take-over of a killed worker's job, so the test waits seconds, not the default 30 s.
      QUEUE_STALLED_JOB_SECONDS: '2',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  await answers200(`http://127.0.0.1:${port}/ready`, {
    failsWhen: () => (child.exitCode === null ? undefined : `the worker exited: ${output}`),
  });
  return { child, port, output: () => output };
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describeWithRedis('worker process', () => {
  let t: TestApp;
  let db: DataSource;
  let customerId: string;
  let customer: ApiClient;
  const workers: Worker[] = [];

  async function task(location: string): Promise<{ status: string; progress?: number; resultUrl?: string }> {
    return (await customer('GET', location)).json();
  }

  async function until(location: string, check: (task: { status: string; progress?: number }) => boolean) {
    return eventually(`task ${location}`, async () => {
      const current = await task(location);
      return check(current) ? current : undefined;
    });
  }

  async function startExport(): Promise<string> {
    const res = await customer('POST', `/api/v1/customers/${customerId}/export`, { body: { format: 'CSV' } });
    expect(res.statusCode).toBe(202);
    return String(res.headers.location);
  }

  async function download(resultUrl: string): Promise<string> {
    const res = await customer('GET', resultUrl);
    expect(res.statusCode).toBe(200);
    return createHash('sha256').update(res.rawPayload).digest('hex');
  }

  beforeAll(async () => {
    // This process serves HTTP only: every job runs in a worker process.
    t = await bootTestApp({ APP_ROLE: 'api' });
    db = t.app.get(DataSource);
    customerId = await seedCustomer(db);
    customer = await customerClient(t, customerId);
    const product = await seedProduct(db, 'Worker widget', '3.30');
    await seedOrders(db, {
      customerId,
      count: 60_000,
      from: '2003-01-01T00:00:00Z',
      productId: product,
      unitPrice: '3.30',
    });
    workers.push(await startWorker());
  });

  afterAll(async () => {
    for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    await t.close();
  });

  it('serves its own /health, /ready (PostgreSQL, Redis, the BullMQ queue), /metrics and problem 404s', async () => {
    const { port } = workers[0];
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    const ready = await fetch(`http://127.0.0.1:${port}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      status: 'ok',
      details: {
        database: { status: 'up', mode: 'external' },
        redis: { status: 'up' },
        queue: { status: 'up', backend: 'bullmq' },
      },
    });
    expect(await (await fetch(`http://127.0.0.1:${port}/info`)).json()).toMatchObject({ role: 'worker' });
    expect(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()).toMatch(
      /job_queue_depth\{queue="customer-export"\}/,
    );
    const missing = await fetch(`http://127.0.0.1:${port}/api/v1/orders`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(PROBLEM_JSON);
    expect(await missing.json()).toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
  });

  it('an export whose worker is killed mid-run (SIGKILL) is taken over and completes byte for byte', async () => {
    const location = await startExport();
    await until(location, (t) => t.status === 'PROCESSING' && (t.progress ?? 0) > 0);
    const killed = workers[0];
    killed.child.kill('SIGKILL');
    await exited(killed.child);
    expect((await task(location)).status).toBe('PROCESSING');

    workers.push(await startWorker());
    const done = await until(location, (t) => t.status !== 'PROCESSING' && t.status !== 'PENDING');
    expect(done.status).toBe('COMPLETED');
    const [{ attempts }] = await db.query('SELECT attempts FROM tasks WHERE task_id = $1', [
      location.split('/').pop(),
    ]);
    expect(attempts).toBeGreaterThanOrEqual(2);

    // The same export, never interrupted, gives the same bytes.
    const control = await until(await startExport(), (t) => t.status === 'COMPLETED');
    expect(await download(String(done.resultUrl))).toBe(await download(String(control.resultUrl)));
    const rows = (await customer('GET', String(done.resultUrl))).body.split('\r\n');
    expect(rows).toHaveLength(60_000 + 2);
  });

  it('a worker stopped with SIGTERM mid-run hands the job back at once; the next worker completes it', async () => {
    const location = await startExport();
    await until(location, (t) => t.status === 'PROCESSING' && (t.progress ?? 0) > 0);
    const stopping = workers[workers.length - 1];
    stopping.child.kill('SIGTERM');
    // Exit 0: it handed the job back, not cut by the hard stop (exit 1); it did not finish nor fail the export.
    expect(await exited(stopping.child)).toBe(0);
    expect((await task(location)).status).toBe('PROCESSING');

    workers.push(await startWorker());
    const done = await until(location, (t) => t.status !== 'PROCESSING' && t.status !== 'PENDING');
    expect(done.status).toBe('COMPLETED');
  });
});
