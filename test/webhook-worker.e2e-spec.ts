import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as http from 'node:http';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { adminClient } from './support/callers';
import { ApiClient } from './support/http-client';
import { freePort } from './support/net';
import { bootTestApp, TestApp } from './support/test-app';
import { verifyWebhook, WebhookReceiver } from './support/webhook-receiver';
import { createEndpoint, deliveriesOf, recordEvent, until, WebhookEndpointBody } from './support/webhooks';
import { privateRedis } from './support/redis';

/**
 * Deliveries survive the failures of their carriers: a worker process killed (SIGKILL) in the middle of an
 * attempt, and an outage of Redis. An `api`-role app records the events; a `worker`-role process of its
 * own (`node dist/src/worker.js`) sends them; both use a Redis server of this test's own, which it stops.
 * PostgreSQL is the record, so nothing is lost: the killed attempt is made again by the next worker with
 * the same `webhook-id` once its lease runs out, and deliveries go out while Redis is away.
 */
const ROOT = path.resolve(__dirname, '..');
const redisServer = (() => {
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server']).toString().trim();
  } catch {
    return '';
  }
})();
const describeWithRedis = redisServer ? describe : describe.skip;

interface WorkerProcess {
  child: ChildProcess;
  output: () => string;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

describeWithRedis('webhook delivery workers', () => {
  let t: TestApp;
  let admin: ApiClient;
  let redisPort: number;
  let redis: ChildProcess | undefined;
  const workers: WorkerProcess[] = [];
  const receivers: WebhookReceiver[] = [];
  const endpoints: string[] = [];

  function startRedis(): void {
    redis = spawn(
      redisServer,
      ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
  }

  async function stopRedis(): Promise<void> {
    if (!redis) return;
    const stopping = redis;
    redis = undefined;
    stopping.kill('SIGKILL');
    await exited(stopping);
  }

  async function startWorker(): Promise<WorkerProcess> {
    const port = await freePort();
    const child = spawn(process.execPath, ['dist/src/worker.js'], {
      cwd: ROOT,
      env: {
        ...process.env,
        APP_ROLE: 'worker',
        PORT: String(port),
        HOST: '127.0.0.1',
        ...privateRedis(redisPort),
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    const worker = { child, output: () => output };
    workers.push(worker);
    await until(`the worker to be ready (${output})`, async () => {
      if (child.exitCode !== null) throw new Error(`worker exited: ${output}`);
      const ready = await fetch(`http://127.0.0.1:${port}/ready`).catch(() => undefined);
      return ready?.status === 200 ? true : undefined;
    });
    return worker;
  }

  beforeAll(async () => {
    redisPort = await freePort();
    startRedis();
    t = await bootTestApp({
      APP_ROLE: 'api',
      ...privateRedis(redisPort),
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    });
    admin = await adminClient(t);
  });

  afterAll(async () => {
    for (const worker of workers) {
      if (worker.child.exitCode === null && worker.child.signalCode === null) {
        worker.child.kill('SIGKILL');
        await exited(worker.child);
      }
    }
    if (endpoints.length > 0) {
      await t.app
        .get(DataSource)
        .query('DELETE FROM webhook_endpoints WHERE webhook_endpoint_id = ANY ($1)', [endpoints]);
    }
    await t.close();
    for (const receiver of receivers) await receiver.close();
    await stopRedis();
  });

  async function endpointFor(receiver: WebhookReceiver, eventType: string): Promise<WebhookEndpointBody> {
    const created = await createEndpoint(admin, { url: receiver.url(), eventTypes: [eventType] });
    endpoints.push(created.webhookEndpointId);
    return created;
  }

  async function succeeded(endpointId: string, eventIds: string[]): Promise<void> {
    await until('every delivery to succeed', async () => {
      const deliveries = await deliveriesOf(admin, `webhookEndpointId=${endpointId}&status=SUCCEEDED`);
      const done = new Set(deliveries.map((d) => d.eventId));
      return eventIds.every((id) => done.has(id)) ? true : undefined;
    });
  }

  it('a worker killed mid-delivery: the next worker sends it again with the same webhook-id', async () => {
    let holding = true;
    const held: http.ServerResponse[] = [];
    const receiver = await WebhookReceiver.start({
      answer: (_, response) => (holding ? held.push(response) : response.writeHead(204).end()),
    });
    receivers.push(receiver);
    const endpoint = await endpointFor(receiver, 'TASK_FAILED');
    const first = await startWorker();
    const eventId = await recordEvent(t, 'TASK_FAILED');

    await until('the attempt to reach the receiver', () => (held.length === 1 ? true : undefined));
    first.child.kill('SIGKILL');
    await exited(first.child);
    holding = false;
    for (const response of held.splice(0)) response.destroy();

    await startWorker();
    // The killed attempt's lease runs out (the attempt's time limit and a margin), then it is sent again.
    await succeeded(endpoint.webhookEndpointId, [eventId]);
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([eventId, eventId]);
    for (const request of receiver.requests) verifyWebhook(endpoint.secret, request);
    const [delivery] = await deliveriesOf(admin, `webhookEndpointId=${endpoint.webhookEndpointId}`);
    expect(delivery).toMatchObject({ status: 'SUCCEEDED', attempts: 1 });
  });

  it('a Redis outage loses nothing: deliveries recorded while it is down go out', async () => {
    const receiver = await WebhookReceiver.start();
    receivers.push(receiver);
    const endpoint = await endpointFor(receiver, 'TASK_CANCELLED');
    if (workers.every((w) => w.child.exitCode !== null || w.child.signalCode !== null)) await startWorker();
    const before = await recordEvent(t, 'TASK_CANCELLED');
    await succeeded(endpoint.webhookEndpointId, [before]);

    await stopRedis();
    const during = [];
    for (let i = 0; i < 5; i++) during.push(await recordEvent(t, 'TASK_CANCELLED'));
    await succeeded(endpoint.webhookEndpointId, during);

    startRedis();
    const after = await recordEvent(t, 'TASK_CANCELLED');
    await succeeded(endpoint.webhookEndpointId, [after]);
    const ids = receiver.requests.map((r) => String(r.headers['webhook-id']));
    expect(new Set(ids)).toEqual(new Set([before, ...during, after]));
  });
});
