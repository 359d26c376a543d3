import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { LightMyRequestResponse } from 'fastify';
import { queuePrefix } from '../src/platform/queue/queue-connections';
import { connectRedis, type RedisConnection } from '../src/platform/redis/redis-connection';
import { adminClient, customerClient } from './support/callers';
import { ApiClient, withIdempotencyKey } from './support/http-client';
import { ORDERS } from './support/orders';
import { canStartRedisCluster, onRedisCluster, PrivateCluster, startRedisCluster } from './support/redis';
import { describeIf } from './support/skip-unless';
import { bootTestApp, TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';
import { createEndpoint, until } from './support/webhooks';
import { MAINTENANCE_QUEUE } from '../src/modules/tasks/task-maintenance.service';

/**
 * A master of the Redis Cluster fails under load (SIGKILL): the one that holds the queues' slot, so the queue,
 * the delivery wake-ups and the rate-limit counter of the customer making the load (chosen so) lose it at once.
 * Its replica is held back (cluster-replica-no-failover) until a request has been answered while the master
 * is gone, then takes over: so the outage is seen whatever the machine's load, and no assert races the
 * election. Meanwhile every request is answered as usual (the rate limit fails open: no RateLimit headers),
 * `/ready` never reports Redis as a reason for 503, and every order event and task accepted before, during
 * and after the failover is delivered to a real HTTP receiver or completes. Just before the kill the
 * reconciler's schedule is deleted, as a failover to a replica that had not received it loses it: the
 * service sets it up again when it sees the cluster's masters change.
 *
 * A wait that can no longer end fails naming what is pending: the task reconciler (a schedule) counts the
 * service's passes, and what is still pending after several is stuck.
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

/** The port of the replica of the master on `masterPort`. */
function replicaOf(seedPort: string, masterPort: string): string {
  const lines = cli(seedPort, 'cluster', 'nodes')
    .split('\n')
    .map((line) => line.split(' '));
  const master = lines.find(([, address]) => address.split('@')[0].endsWith(`:${masterPort}`));
  const replica = lines.find(([, , , masterId]) => masterId === master?.[0]);
  if (!replica) throw new Error(`the master on ${masterPort} has no replica`);
  return replica[1].split('@')[0].split(':')[1];
}

function redisServerMissing(): never {
  throw new Error('the app was booted without REDIS_CLUSTER_NODES');
}

/** A schedule of the service as Redis holds it (BullMQ's job scheduler): its runs so far, and its next run. */
async function scheduleState(redis: RedisConnection, prefix: string, queue: string, name: string) {
  const id = `${queue}.${name}`;
  const runs = await redis.hget(`${prefix}:${queue}:repeat:${id}`, 'ic');
  const next = await redis.zscore(`${prefix}:${queue}:repeat`, id);
  const nextRun = next === null ? 0 : await redis.exists(`${prefix}:${queue}:repeat:${id}:${next}`);
  return { runs: runs === null ? undefined : Number(runs), hasNextRun: nextRun === 1 };
}

describeOnCluster('a Redis Cluster master failing over under load', () => {
  let cluster: PrivateCluster;
  let t: TestApp;
  let receiver: WebhookReceiver;
  let admin: ApiClient;
  let customer: ApiClient;
  let endpointId: string | undefined;
  let redis: RedisConnection;

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
    // The test's own look at the queues' keys; it waits out the failover as the service's queues do.
    redis = connectRedis(t.config.redis.server ?? redisServerMissing(), { waitForFailover: true });
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
    redis?.disconnect();
    await receiver?.close();
    cluster?.stop();
  });

  it('answers every request, stays ready, and delivers and completes everything accepted', async () => {
    const prefix = queuePrefix(t.config.redis.keyPrefix);
    /** The service's passes over its work: runs of the task reconciler, its shortest schedule. */
    const sweeps = async () => (await scheduleState(redis, prefix, MAINTENANCE_QUEUE, 'reconcile')).runs ?? 0;
    /** Fails a wait once the service has made `passes` passes since it started and it has not ended. */
    const stuckAfter = async (passes: number, pending: () => string) => {
      const from = await sweeps();
      let seen = from;
      return {
        poll: async () => void (seen = await sweeps().catch(() => seen)),
        failsWhen: () =>
          seen - from >= passes
            ? `still pending after ${passes} passes of the reconciler: ${pending()}`
            : undefined,
      };
    };

    /** /ready's answers that were not 200 for a reason other than the database (slow under load). */
    const readinessFailures: string[] = [];
    const ready = async () => {
      const res = await t.app.inject({ method: 'GET', url: '/ready' });
      if (res.statusCode !== 200) {
        const checks = res.json<{ checks?: Record<string, { status: string }> }>().checks ?? {};
        const down = Object.keys(checks).filter((name) => checks[name].status === 'down');
        if (down.some((name) => name !== 'database')) readinessFailures.push(`${res.statusCode} ${res.body}`);
      }
      return res;
    };
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
    const seed = cluster.nodes.split(',')[0].split(':')[1];
    const victim = masterOf(seed, `${prefix}:any`);
    const replica = replicaOf(seed, victim);
    try {
      await until('load before the failover', () => iterations.before >= 10 || undefined);
      const reconcile = await scheduleState(redis, prefix, MAINTENANCE_QUEUE, 'reconcile');
      expect(reconcile.hasNextRun).toBe(true);

      // The replica waits until the test lets it take over.
      cli(replica, 'config', 'set', 'cluster-replica-no-failover', 'yes');
      // Lost as a failover loses what its master had not replicated yet: the schedule of the reconciler.
      const id = `${MAINTENANCE_QUEUE}.reconcile`;
      const keys = `${prefix}:${MAINTENANCE_QUEUE}`;
      const next = await redis.zscore(`${keys}:repeat`, id);
      await redis.zrem(`${keys}:delayed`, `repeat:${id}:${next}`);
      await redis.zrem(`${keys}:repeat`, id);
      await redis.unlink(`${keys}:repeat:${id}`, `${keys}:repeat:${id}:${next}`);
      // Replicated before the master goes: the replica takes over without the schedule.
      cli(victim, 'wait', '1', '0');
      const pid = Number(/^process_id:(\d+)/m.exec(cli(victim, 'info', 'server'))?.[1]);
      phase = 'during';
      process.kill(pid, 'SIGKILL');
      await until(
        'a request answered while the master is gone (failed open)',
        () => uncounted.during > 0 || undefined,
      );
      cli(replica, 'config', 'set', 'cluster-replica-no-failover', 'no');
      cli(replica, 'cluster', 'failover', 'force');

      // The failover is done when the cluster is whole again with the failed master still known as failed.
      const failedOver = await until('the replica to take over', async () => {
        const res = await ready();
        if (res.statusCode !== 200) return undefined;
        const details = res.json<{ details: { redis: Record<string, unknown> } }>().details;
        return details.redis.state === 'ok' && details.redis.mastersUp === 3 && details.redis.masters === 4
          ? details.redis
          : undefined;
      });
      expect(failedOver).toEqual({ status: 'up', mode: 'cluster', state: 'ok', masters: 4, mastersUp: 3 });
      expect(masterOf(seed, `${prefix}:any`)).toBe(replica);
      phase = 'after';
      await until('load after the failover', () => iterations.after >= 10 || undefined);
    } finally {
      stopped = true;
      await loops;
    }

    expect(unexpected).toEqual([]);
    expect(readinessFailures).toEqual([]);
    expect(iterations.during).toBeGreaterThan(0);
    // Counted before; failed open while its master was gone.
    expect(uncounted.before).toBe(0);

    // The counter counts again once the client has found the new master.
    await until('a response with RateLimit headers', async () => {
      const res = await customer('GET', `${ORDERS}?size=1`);
      return res.headers['ratelimit-limit'] !== undefined || undefined;
    });

    // The schedule lost in the failover is set up again, with its next run (it counts the passes below, so
    // this wait has none to count: a schedule never set up again ends at Jest's guard against hung tests).
    await until(
      "the reconciler's schedule set up again",
      async () =>
        (await scheduleState(redis, prefix, MAINTENANCE_QUEUE, 'reconcile')).hasNextRun || undefined,
      { intervalMs: 200 },
    );

    const orderIds = accepted.flatMap((entry) => entry.orderIds);
    const taskLocations = accepted.flatMap((entry) => entry.taskLocations);
    expect(new Set(accepted.map((entry) => entry.phase))).toEqual(new Set(['before', 'during', 'after']));
    // A task whose job the failover lost is queued again by the reconciler (every 30 s, once quiet 30 s).
    const tasks = new Map<string, { taskId?: string; status?: string }>();
    const finished = await stuckAfter(4, () =>
      [...tasks]
        .filter(([, task]) => task.status !== 'COMPLETED')
        .map(([at, task]) => `${at} ${task.status}`)
        .join(', '),
    );
    await until(
      'every task completed',
      async () => {
        await finished.poll();
        for (const location of taskLocations) {
          if (tasks.get(location)?.status === 'COMPLETED') continue;
          tasks.set(location, (await admin('GET', location)).json<{ taskId: string; status: string }>());
        }
        return [...tasks.values()].every((task) => task.status === 'COMPLETED') || undefined;
      },
      { failsWhen: finished.failsWhen, intervalMs: 200 },
    );
    const taskIds = [...tasks.values()].map((task) => String(task.taskId));
    const delivered = (id: string) => receiver.requests.some((request) => request.body.includes(id));
    const deliveries = await stuckAfter(
      3,
      () => `not delivered: ${[...orderIds, ...taskIds].filter((id) => !delivered(id)).join(', ')}`,
    );
    await until(
      'every order and task delivered',
      async () => {
        await deliveries.poll();
        return [...orderIds, ...taskIds].every(delivered) || undefined;
      },
      { failsWhen: deliveries.failsWhen, intervalMs: 200 },
    );
  });
});
