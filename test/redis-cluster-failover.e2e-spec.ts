import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { LightMyRequestResponse } from 'fastify';
import { queuePrefix } from '../src/platform/queue/queue-connections';
import { adminClient, customerClient } from './support/callers';
import { ApiClient, withIdempotencyKey } from './support/http-client';
import { ORDERS } from './support/orders';
import { canStartRedisCluster, onRedisCluster, PrivateCluster, startRedisCluster } from './support/redis';
import { describeIf } from './support/skip-unless';
import { bootTestApp, TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';
import { createEndpoint, until } from './support/webhooks';

/**
 * A master of the Redis Cluster fails under load (SIGKILL): the one that holds the queues' slot, so the queue,
 * the delivery wake-ups and the rate-limit counter of the customer making the load (chosen so) lose it at once.
 * Its replica takes over within the cluster's node timeout and an election. Meanwhile every request is
 * answered as usual (the rate limit fails open: no RateLimit headers), `/ready` stays 200, and every order
 * event and task accepted before, during and after the failover is delivered to a real HTTP receiver or
 * completes.
 *
 * The run's own cluster is shared with the other suites: this one fails over a private cluster instead
 * (scripts/redis-cluster.sh), and runs only when the run is on a cluster (REDIS_CLUSTER_NODES).
 */
const describeOnCluster = describeIf(
  onRedisCluster && canStartRedisCluster,
  'needs REDIS_CLUSTER_NODES (a run on a Redis Cluster) and redis-server: it fails over a private cluster of its own',
);

type Phase = 'before' | 'during' | 'after';

interface Accepted {
  phase: Phase;
  orderIds: string[];
  taskLocations: string[];
}

const cli = (port: string, ...args: string[]) =>
  execFileSync('redis-cli', ['-h', '127.0.0.1', '-p', port, ...args])
    .toString()
    .trim();

/** The port of the master serving `key`'s slot, as a node of the cluster sees it. */
function masterOf(seedPort: string, key: string): string {
  const slot = Number(cli(seedPort, 'cluster', 'keyslot', key));
  for (const line of cli(seedPort, 'cluster', 'nodes').split('\n')) {
    const [, address, flags, , , , , , ...slots] = line.split(' ');
    if (!flags.split(',').includes('master')) continue;
    const serves = slots.some((range) => {
      const [from, to = from] = range.split('-').map(Number);
      return slot >= from && slot <= to;
    });
    if (serves) return address.split('@')[0].split(':')[1];
  }
  throw new Error(`no master serves slot ${slot}`);
}

describeOnCluster('a Redis Cluster master failing over under load', () => {
  let cluster: PrivateCluster;
  let t: TestApp;
  let receiver: WebhookReceiver;
  let admin: ApiClient;
  let customer: ApiClient;
  let endpointId: string | undefined;

  beforeAll(async () => {
    cluster = startRedisCluster();
    receiver = await WebhookReceiver.start();
    t = await bootTestApp({
      REDIS_URL: undefined,
      REDIS_CLUSTER_NODES: cluster.nodes,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      // A job whose lock was on the failed master is taken over after this long.
      QUEUE_STALLED_JOB_SECONDS: '5',
    });
    admin = await adminClient(t);
    // A customer whose rate-limit counter is on the master that will fail: the one of the queues' slot.
    const seed = cluster.nodes.split(',')[0].split(':')[1];
    const queues = masterOf(seed, `${queuePrefix(t.config.redis.keyPrefix)}:any`);
    const userId = await until("a customer counted on the queues' master", () => {
      const id = randomUUID();
      return masterOf(seed, `${t.config.redis.keyPrefix}:rl:default:user:${id}`) === queues ? id : undefined;
    });
    customer = await customerClient(t, userId);
    endpointId = (
      await createEndpoint(admin, { url: receiver.url(), eventTypes: ['ORDER_CREATED', 'TASK_COMPLETED'] })
    ).webhookEndpointId;
  });

  afterAll(async () => {
    if (endpointId) {
      await t.app
        .get(DataSource)
        .query('DELETE FROM webhook_endpoints WHERE webhook_endpoint_id = $1', [endpointId]);
    }
    await t?.close();
    await receiver?.close();
    cluster?.stop();
  });

  it('answers every request, stays ready, and delivers and completes everything accepted', async () => {
    const ready = async () => {
      const res = await t.app.inject({ method: 'GET', url: '/ready' });
      readiness.push(res.statusCode);
      return res;
    };
    const readiness: number[] = [];
    const unexpected: string[] = [];
    const accepted: Accepted[] = [];
    let phase: Phase = 'before';
    let stopped = false;
    const expect2xx = (what: string, res: LightMyRequestResponse, status: number) => {
      if (res.statusCode !== status) unexpected.push(`${phase}: ${what} → ${res.statusCode} ${res.body}`);
      return res.statusCode === status;
    };
    /** Order requests answered without RateLimit headers (the counter unreachable: failed open), by phase. */
    const uncounted: Record<Phase, number> = { before: 0, during: 0, after: 0 };

    const iterations: Record<Phase, number> = { before: 0, during: 0, after: 0 };
    // Each loop: an order (ORDER_CREATED, delivered), and every third turn a report task (queued, then run).
    const loop = async () => {
      for (let turn = 0; !stopped; turn++) {
        const entry: Accepted = { phase, orderIds: [], taskLocations: [] };
        const order = await customer('POST', ORDERS, { body: {}, headers: withIdempotencyKey() });
        if (expect2xx('POST /orders', order, 201))
          entry.orderIds.push(order.json<{ orderId: string }>().orderId);
        // By the phase it was answered in: one asked before the kill may be answered after it.
        if (order.headers['ratelimit-limit'] === undefined) uncounted[phase]++;
        if (turn % 3 === 0) {
          const today = new Date().toISOString().slice(0, 10);
          const task = await admin('POST', '/api/v1/reports/generate', {
            body: { dateFrom: today, dateTo: today },
            headers: withIdempotencyKey(),
          });
          if (expect2xx('POST /reports/generate', task, 202))
            entry.taskLocations.push(String(task.headers.location));
        }
        accepted.push(entry);
        iterations[entry.phase]++;
        await ready();
      }
    };
    // The shared client connects in the background: the load starts once the customer is counted.
    await until('the customer counted', async () => {
      const res = await customer('GET', `${ORDERS}?size=1`);
      return res.headers['ratelimit-limit'] !== undefined || undefined;
    });
    const loops = Promise.all([loop(), loop(), loop()]);

    await until('load before the failover', () => iterations.before >= 10 || undefined);
    const seed = cluster.nodes.split(',')[0].split(':')[1];
    const victim = masterOf(seed, `${queuePrefix(t.config.redis.keyPrefix)}:any`);
    const pid = Number(/^process_id:(\d+)/m.exec(cli(victim, 'info', 'server'))?.[1]);
    phase = 'during';
    process.kill(pid, 'SIGKILL');

    // The failover is done when the cluster is whole again with the failed master still known as failed.
    const failedOver = await until('the replica to take over', async () => {
      const details = (await ready()).json<{ details: { redis: Record<string, unknown> } }>().details;
      return details.redis.state === 'ok' && details.redis.mastersUp === 3 && details.redis.masters === 4
        ? details.redis
        : undefined;
    });
    expect(failedOver).toEqual({ status: 'up', mode: 'cluster', state: 'ok', masters: 4, mastersUp: 3 });
    expect(masterOf(seed, `${queuePrefix(t.config.redis.keyPrefix)}:any`)).not.toBe(victim);
    phase = 'after';
    await until('load after the failover', () => iterations.after >= 10 || undefined);
    stopped = true;
    await loops;

    expect(unexpected).toEqual([]);
    expect(readiness.filter((status) => status !== 200)).toEqual([]);
    expect(iterations.during).toBeGreaterThan(0);
    // Counted before; failed open while its master was gone.
    expect(uncounted.before).toBe(0);
    expect(uncounted.during).toBeGreaterThan(0);

    // The counter counts again once the client has found the new master.
    await until('a response with RateLimit headers', async () => {
      const res = await customer('GET', `${ORDERS}?size=1`);
      return res.headers['ratelimit-limit'] !== undefined || undefined;
    });

    const orderIds = accepted.flatMap((entry) => entry.orderIds);
    const taskLocations = accepted.flatMap((entry) => entry.taskLocations);
    expect(new Set(accepted.map((entry) => entry.phase))).toEqual(new Set(['before', 'during', 'after']));
    const taskIds = await Promise.all(
      taskLocations.map((location) =>
        until(`task ${location} to complete`, async () => {
          const task = (await admin('GET', location)).json<{ taskId: string; status: string }>();
          return task.status === 'COMPLETED' ? task.taskId : undefined;
        }),
      ),
    );
    const delivered = (id: string) => receiver.requests.some((request) => request.body.includes(id));
    await until(
      'every order and task delivered',
      () => [...orderIds, ...taskIds].every(delivered) || undefined,
    );
  });
});
