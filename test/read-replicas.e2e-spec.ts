import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { nameOf } from '../src/platform/database/replicas';
import { adminClient, customerClient } from './support/callers';
import type { ApiClient } from './support/http-client';
import { createOrder, ORDERS } from './support/orders';
import { describeIf } from './support/skip-unless';
import { bootTestApp, TestApp } from './support/test-app';
import { until } from './support/wait';

/**
 * Read replicas against a real streaming standby of the run's server (E2E_REPLICA_URL; CI makes one with
 * scripts/pg-replica.sh): lists are served by the replica, a paused replay sends them to the primary within
 * DB_REPLICA_MAX_LAG_MS while the creator still sees its order at once, on another pod too, and the replica
 * is taken back when it catches up; a replica stopped under load costs no request (E2E_REPLICA_DIR: the
 * standby's folder, which the spec stops and starts with the script).
 */
const REPLICA_URL = process.env.E2E_REPLICA_DATABASE_URL;
const REPLICA_DIR = process.env.E2E_REPLICA_DIR;
const MAX_LAG_MS = 1_000;
const execFileAsync = promisify(execFile);

interface ReplicaCheck {
  status: string;
  replicas: Array<{ name: string; status: string; lagMs: number | null }>;
}

describeIf(
  REPLICA_URL,
  'E2E_REPLICA_URL is not set (a streaming standby of DATABASE_URL: scripts/pg-replica.sh)',
)('read replicas on a streaming standby', () => {
  // A skipped suite's body still runs (to list its tests): no replica URL to name then.
  const replicaName = REPLICA_URL ? nameOf(REPLICA_URL) : '';
  // Two pods of one service: a caller's write on one, its next list on the other.
  let podA: TestApp;
  let podB: TestApp;
  let standby: Client;

  const env = { DATABASE_REPLICA_URLS: REPLICA_URL, DB_REPLICA_MAX_LAG_MS: String(MAX_LAG_MS) };

  async function replicaState(t: TestApp): Promise<ReplicaCheck['replicas'][number]> {
    const res = await t.app.inject({ method: 'GET', url: '/ready' });
    expect(res.statusCode).toBe(200);
    return (res.json().details.replicas as ReplicaCheck).replicas[0];
  }

  /** `db_replica_reads_total` of `t` by server: the replica's and the primary's. */
  async function reads(t: TestApp): Promise<{ replica: number; primary: number }> {
    const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    const count = (server: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`db_replica_reads_total{server="${server}"}`));
      return line === undefined ? 0 : Number(line.split(' ').at(-1));
    };
    return { replica: count(replicaName), primary: count('primary') };
  }

  async function listIds(client: ApiClient): Promise<string[]> {
    const res = await client('GET', `${ORDERS}?size=100`);
    expect(res.statusCode).toBe(200);
    return (res.json().content as Array<{ orderId: string }>).map((order) => order.orderId);
  }

  beforeAll(async () => {
    podA = await bootTestApp(env);
    podB = process.env.REDIS_URL ? await bootTestApp(env) : podA;
    standby = new Client({ connectionString: REPLICA_URL });
    // The stop test ends this connection with the server.
    standby.on('error', () => undefined);
    await standby.connect();
    await until('the replica to be up', async () => (await replicaState(podA)).status === 'up');
    await until('the replica to be up on pod B', async () => (await replicaState(podB)).status === 'up');
  });

  afterAll(async () => {
    await standby?.query('SELECT pg_wal_replay_resume()').catch(() => undefined);
    await standby?.end();
    if (podB !== podA) await podB?.close();
    await podA?.close();
  });

  it('serves a list from the replica: its statement runs there, and /ready and the metrics say so', async () => {
    const admin = await adminClient(podA);
    const ready = await podA.app.inject({ method: 'GET', url: '/ready' });
    expect(ready.json().details.replicas).toMatchObject({
      status: 'up',
      maxLagMs: MAX_LAG_MS,
      replicas: [{ name: replicaName, status: 'up' }],
    });
    // A list by a caller with no writes of its own goes to the replica while it is up (a sample may find
    // it briefly behind under load: the primary then serves, and the next list is tried), and the standby
    // itself runs the list's statement, on the service's connection to the run's database. A connection's
    // last statement is what the standby shows, and the lag sample shares the connections: looked for after
    // each list until one is seen there.
    await until('a list served by the replica and its statement seen on the standby', async () => {
      const before = await reads(podA);
      await listIds(admin);
      if ((await reads(podA)).replica === before.replica) return false;
      const { rows } = await standby.query<{ query: string }>(
        `SELECT query FROM pg_stat_activity
           WHERE datname = current_database() AND application_name = 'order-service' AND pid <> pg_backend_pid()`,
      );
      return rows.some((row) => /FROM orders/i.test(row.query));
    });
    // A single order stays on the primary.
    const customer = await customerClient(podA);
    const order = await createOrder(customer);
    const counted = await reads(podA);
    expect((await customer('GET', `${ORDERS}/${order.orderId}`)).statusCode).toBe(200);
    expect(await reads(podA)).toEqual(counted);
  });

  it('with replay paused: the creator sees its order at once on either pod, lists go to the primary within the bound, and the caught-up replica is taken back', async () => {
    const userId = randomUUID();
    const customer = await customerClient(podA, userId);
    const sameCustomerOnB = await customerClient(podB, userId);
    const admin = await adminClient(podB);
    await standby.query('SELECT pg_wal_replay_pause()');

    const order = await createOrder(customer);
    // The caller's own write: its next list, on this pod and on the other, has it (the primary answers).
    const primaryBefore = (await reads(podB)).primary;
    expect(await listIds(customer)).toContain(order.orderId);
    expect(await listIds(sameCustomerOnB)).toContain(order.orderId);
    expect((await reads(podB)).primary).toBeGreaterThan(primaryBefore);

    // Once further behind than the bound, the replica is skipped: everyone's lists come from the primary.
    await until(
      'the paused replica to be lagging',
      async () => (await replicaState(podB)).status === 'lagging',
    );
    const lagging = await reads(podB);
    expect(await listIds(admin)).toContain(order.orderId);
    const after = await reads(podB);
    expect(after.replica).toBe(lagging.replica);
    expect(after.primary).toBeGreaterThan(lagging.primary);

    // Replay resumed: the replica catches up and serves again, the order included.
    await standby.query('SELECT pg_wal_replay_resume()');
    await until('the replica to be taken back', async () => (await replicaState(podB)).status === 'up');
    await until('a list served by the replica again', async () => {
      const before = (await reads(podB)).replica;
      const ids = await listIds(admin);
      return (await reads(podB)).replica > before && ids.includes(order.orderId);
    });
  });

  describeIf(
    REPLICA_DIR,
    'E2E_REPLICA_DIR is not set (the standby scripts/pg-replica.sh made, to stop and start)',
  )('the replica stopped and started under load', () => {
    const script = path.resolve(__dirname, '../scripts/pg-replica.sh');

    it('answers every list (no 5xx) while the replica is stopped, and uses it again once it is back', async () => {
      const admin = await adminClient(podA);
      const customer = await customerClient(podA);
      for (let i = 0; i < 3; i++) await createOrder(customer);
      const statuses = new Map<number, number>();
      let loading = true;
      const worker = async () => {
        while (loading) {
          const res = await admin('GET', `${ORDERS}?size=20`);
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        }
      };
      const workers = Array.from({ length: 4 }, worker);
      try {
        await until('lists under way', () => [...statuses.values()].reduce((a, b) => a + b, 0) >= 20);
        await execFileAsync('bash', [script, 'halt', REPLICA_DIR as string]);
        await until(
          'the stopped replica to be down',
          async () => (await replicaState(podA)).status === 'down',
        );
        const whileDown = await reads(podA);
        await until(
          'lists served while it is down',
          async () => (await reads(podA)).primary > whileDown.primary + 20,
        );
        await execFileAsync('bash', [script, 'start', REPLICA_DIR as string]);
        await until('the replica to be taken back', async () => (await replicaState(podA)).status === 'up');
        const back = await reads(podA);
        await until(
          'lists served by the replica again',
          async () => (await reads(podA)).replica > back.replica + 20,
        );
      } finally {
        loading = false;
        await Promise.all(workers);
        // Running again whatever happened above (a no-op when it is).
        await execFileAsync('bash', [script, 'start', REPLICA_DIR as string]);
      }
      expect([...statuses.keys()]).toEqual([200]);
    });
  });
});
