import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import * as http from 'node:http';
import * as os from 'node:os';
import { DataSource } from 'typeorm';
import { DestinationPolicy } from '../src/modules/webhooks/domain/destination-policy';
import { LEASE_MS } from '../src/modules/webhooks/webhook-delivery.processor';
import { adminClient } from './support/callers';
import { ApiClient } from './support/http-client';
import { freePort, ownerOfConnection } from './support/net';
import { bootTestApp, TestApp } from './support/test-app';
import { verifyWebhook, WebhookReceiver } from './support/webhook-receiver';
import { createEndpoint, deliveriesOf, recordEvent, until, WebhookEndpointBody } from './support/webhooks';
import { privateRedis } from './support/redis';
import { exited, startWorker as startWorkerProcess, type WorkerProcess } from './support/worker-process';

/**
 * Deliveries survive the failures of their carriers: a worker process killed (SIGKILL) in the middle of an
 * attempt, and an outage of Redis. An `api`-role app records the events; `worker`-role processes of their
 * own (`node dist/src/worker.js`) send them; all use a Redis server of this test's own, which it stops.
 * PostgreSQL is the record, so nothing is lost: the killed attempt is made again by the other worker with
 * the same `webhook-id` once its short lease runs out, and deliveries go out while Redis is away. A worker's
 * log is read for the warning of a destination refused at connect time.
 */
const redisServer = (() => {
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server']).toString().trim();
  } catch {
    return '';
  }
})();
const describeWithRedis = redisServer ? describe : describe.skip;

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

  /** A worker on the test's private Redis, kept to be stopped after the tests. */
  async function startWorker(env: Record<string, string> = {}): Promise<WorkerProcess> {
    const worker = await startWorkerProcess({
      ...privateRedis(redisPort),
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      ...env,
    });
    workers.push(worker);
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

  it('two workers: a delivery held by one that is killed (SIGKILL) is sent again by the other; both attempts counted', async () => {
    let holding = true;
    const held: http.ServerResponse[] = [];
    const arrivedAt: number[] = [];
    const receiver = await WebhookReceiver.start({
      answer: (_, response) => {
        arrivedAt.push(performance.now());
        if (holding) held.push(response);
        else response.writeHead(204).end();
      },
    });
    receivers.push(receiver);
    const endpoint = await endpointFor(receiver, 'TASK_FAILED');
    const running = [await startWorker(), await startWorker()];
    const eventId = await recordEvent(t, 'TASK_FAILED');

    await until('the attempt to reach the receiver', () => (held.length === 1 ? true : undefined));
    const pid = ownerOfConnection(
      receiver.requests[0].remotePort,
      running.map((w) => w.child.pid ?? 0),
    );
    const holder = running.find((w) => w.child.pid === pid);
    if (!holder) throw new Error('no worker holds the connection to the receiver');
    // The lease is short, and renewed while the attempt runs.
    const lease = async () => {
      const [row] = await t.app.get(DataSource).query<Array<{ ends_in_ms: number; claimed_until: Date }>>(
        `SELECT (extract(epoch FROM claimed_until - now()) * 1000)::float8 AS ends_in_ms, claimed_until
             FROM webhook_delivery_queue WHERE webhook_endpoint_id = $1`,
        [endpoint.webhookEndpointId],
      );
      return row;
    };
    const first = await lease();
    expect(first.ends_in_ms).toBeLessThanOrEqual(LEASE_MS);
    await until('the lease to be renewed', async () =>
      (await lease()).claimed_until > first.claimed_until ? true : undefined,
    );
    expect(receiver.requests).toHaveLength(1);

    holding = false;
    const killedAt = performance.now();
    holder.child.kill('SIGKILL');
    await exited(holder.child);
    for (const response of held.splice(0)) response.destroy();

    await succeeded(endpoint.webhookEndpointId, [eventId]);
    process.stdout.write(
      `webhook-worker: from the kill to the second request ${Math.round(arrivedAt[1] - killedAt)} ms\n`,
    );
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([eventId, eventId]);
    for (const request of receiver.requests) verifyWebhook(endpoint.secret, request);
    const [delivery] = await deliveriesOf(admin, `webhookEndpointId=${endpoint.webhookEndpointId}`);
    // The attempt cut short by the kill counts: the receiver saw two requests.
    expect(delivery).toMatchObject({ status: 'SUCCEEDED', attempts: 2 });
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

  it('a delivery refused at connect time logs one warning: the endpoint, the host name, its addresses', async () => {
    // The machine's own name resolves to an address of this host, which the default policy refuses.
    const host = os.hostname();
    const addresses = (await lookup(host, { all: true })).map((a) => a.address);
    const strict = new DestinationPolicy({ allowPrivateUrls: false, allowedNetworks: [] });
    expect(addresses.some((address) => !strict.checkAddress(address).allowed)).toBe(true);
    for (const worker of workers) {
      if (worker.child.exitCode === null && worker.child.signalCode === null) {
        worker.child.kill('SIGKILL');
        await exited(worker.child);
      }
    }
    const worker = await startWorker({ WEBHOOK_ALLOW_PRIVATE_URLS: 'false' });
    // Accepted by the api app (private URLs allowed there), as an endpoint saved before its name changed.
    const url = `https://${host}:${await freePort()}/hooks/token-in-the-path`;
    const created = await createEndpoint(admin, { url, eventTypes: ['ORDER_REFUNDED'] });
    endpoints.push(created.webhookEndpointId);
    await recordEvent(t, 'ORDER_REFUNDED');

    const [failed] = await until('the delivery to fail', async () => {
      const deliveries = await deliveriesOf(
        admin,
        `webhookEndpointId=${created.webhookEndpointId}&status=FAILED`,
      );
      return deliveries.length > 0 ? deliveries : undefined;
    });
    expect(failed).toMatchObject({ lastError: 'URL_NOT_ALLOWED', attempts: 1 });
    const refusals = await until('the warning', () => {
      const lines = worker
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.msg === 'webhook attempt refused: destination not allowed');
      return lines.length > 0 ? lines : undefined;
    });
    expect(refusals).toEqual([
      expect.objectContaining({
        level: 40,
        webhookEndpointId: created.webhookEndpointId,
        deliveryId: failed.deliveryId,
        host,
        addresses,
      }),
    ]);
    expect(worker.output()).not.toContain('token-in-the-path');
  });
});
