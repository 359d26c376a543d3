import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { migrations } from '../migrations';
import {
  type ClaimedDelivery,
  WebhookDeliveriesRepository,
} from '../src/modules/webhooks/persistence/webhook-deliveries.repository';
import { databaseOptions } from '../src/platform/database/database-options';
import { Transactions } from '../src/platform/database/transactions';
import { adminClient } from './support/callers';
import { ApiClient } from './support/http-client';
import { bootTestApp, TestApp } from './support/test-app';
import { createEndpoint, until, WEBHOOK_DELIVERIES, WebhookDeliveryBody } from './support/webhooks';

/**
 * The pending deliveries are a work queue of their own, the ended ones the history
 * (docs/decisions/0154-webhook-delivery-queue.md): a delivery leaves the queue for the history once, by the
 * record of the attempt that ends it, even when two workers hold it (a lease ran out) and record together;
 * retention empties the history and never touches the queue; the migration moves the pending rows of the
 * table as it was, and the previous release's writes of pending rows land in the queue.
 *
 * The deliveries here are written straight to the tables, for endpoints that are disabled: no worker (this
 * app's or another spec's) claims them.
 */
const DIRECT_URL = process.env.E2E_DIRECT_DATABASE_URL ?? (process.env.DATABASE_URL as string);

describe('webhook delivery queue and history', () => {
  let t: TestApp;
  let admin: ApiClient;
  let direct: Client;
  const endpoints: string[] = [];

  beforeAll(async () => {
    t = await bootTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    admin = await adminClient(t);
    direct = new Client({ connectionString: DIRECT_URL });
    await direct.connect();
  });
  afterAll(async () => {
    if (endpoints.length > 0) {
      await direct.query('DELETE FROM webhook_endpoints WHERE webhook_endpoint_id = ANY ($1)', [endpoints]);
    }
    await direct?.end();
    await t?.close();
  });

  /** An endpoint that no worker claims from (disabled), as a delivery's endpoint waiting to be enabled. */
  async function disabledEndpoint(): Promise<string> {
    const { webhookEndpointId } = await createEndpoint(admin, { url: 'http://127.0.0.1:9/queue' });
    endpoints.push(webhookEndpointId);
    await direct.query(
      "UPDATE webhook_endpoints SET status = 'DISABLED', disabled_reason = 'MANUAL' WHERE webhook_endpoint_id = $1",
      [webhookEndpointId],
    );
    return webhookEndpointId;
  }

  async function queued(
    endpointId: string,
    values: { claimToken?: string; attempts?: number; createdDaysAgo?: number } = {},
  ): Promise<string> {
    const [{ delivery_id }] = (
      await direct.query<{ delivery_id: string }>(
        `INSERT INTO webhook_delivery_queue (webhook_endpoint_id, event_id, event_type, attempts, next_attempt_at,
                                             last_attempt_at, claimed_until, claim_token, created_at)
         VALUES ($1, gen_random_uuid(), 'ORDER_CREATED', $2, now(), now(),
                 CASE WHEN $3::uuid IS NOT NULL THEN now() + interval '1 minute' END, $3,
                 now() - make_interval(days => $4))
         RETURNING delivery_id`,
        [endpointId, values.attempts ?? 0, values.claimToken ?? null, values.createdDaysAgo ?? 0],
      )
    ).rows;
    return delivery_id;
  }

  async function ended(endpointId: string, createdDaysAgo: number): Promise<string> {
    const [{ delivery_id }] = (
      await direct.query<{ delivery_id: string }>(
        `INSERT INTO webhook_deliveries (webhook_endpoint_id, event_id, event_type, status, attempts, last_attempt_at,
                                         last_response_status, created_at, updated_at)
         VALUES ($1, gen_random_uuid(), 'ORDER_CREATED', 'SUCCEEDED', 1, now(), 204,
                 now() - make_interval(days => $2), now())
         RETURNING delivery_id`,
        [endpointId, createdDaysAgo],
      )
    ).rows;
    return delivery_id;
  }

  async function where(deliveryId: string): Promise<{ queue: number; history: Array<{ status: string }> }> {
    const queue = await direct.query('SELECT 1 FROM webhook_delivery_queue WHERE delivery_id = $1', [
      deliveryId,
    ]);
    const history = await direct.query<{ status: string }>(
      'SELECT status FROM webhook_deliveries WHERE delivery_id = $1',
      [deliveryId],
    );
    return { queue: queue.rowCount ?? 0, history: history.rows };
  }

  async function read(deliveryId: string): Promise<WebhookDeliveryBody> {
    const response = await admin('GET', `${WEBHOOK_DELIVERIES}/${deliveryId}`);
    expect(response.statusCode).toBe(200);
    return response.json<WebhookDeliveryBody>();
  }

  function claimed(endpointId: string, deliveryId: string, claimToken: string): ClaimedDelivery {
    return {
      deliveryId,
      webhookEndpointId: endpointId,
      eventId: randomUUID(),
      eventType: 'ORDER_CREATED',
      url: 'http://127.0.0.1:9/queue',
      secrets: { current: 'unused' },
      attempt: 2,
      singleAttempt: false,
      probe: false,
      claimToken,
      createdAt: new Date(),
    };
  }

  it('an ended delivery leaves the queue for the history once, by its holder, when two workers record at once', async () => {
    const endpointId = await disabledEndpoint();
    const [stale, current] = [randomUUID(), randomUUID()];
    // Worker A's lease ran out and worker B claimed the delivery again (its second attempt).
    const deliveryId = await queued(endpointId, { claimToken: current, attempts: 2 });
    const repository = t.app.get(WebhookDeliveriesRepository);
    const transactions = t.app.get(Transactions);
    const record = (token: string, status: 'SUCCEEDED' | 'FAILED') =>
      transactions.runAlone((tx) =>
        repository.recordAttempt(
          tx,
          claimed(endpointId, deliveryId, token),
          { status, responseStatus: status === 'SUCCEEDED' ? 204 : 500, error: undefined },
          false,
        ),
      );
    expect((await read(deliveryId)).status).toBe('PENDING');

    // The row held, so the records meet at it: A's (late), B's, and B's again (as after a lost answer).
    const holder = new Client({ connectionString: DIRECT_URL });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM webhook_delivery_queue WHERE delivery_id = $1 FOR UPDATE', [
      deliveryId,
    ]);
    const records = [record(stale, 'FAILED'), record(current, 'SUCCEEDED'), record(current, 'SUCCEEDED')];
    await until('both records of the holder to wait at the row', async () => {
      const waiting = await direct.query(
        `SELECT 1 FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'
            AND query LIKE '%DELETE FROM webhook_delivery_queue%'`,
      );
      return waiting.rowCount === 2;
    });
    await holder.query('COMMIT');
    await holder.end();
    const [late, first, again] = await Promise.all(records);

    expect(late.recorded).toBe(false);
    expect([first.recorded, again.recorded].sort()).toEqual([false, true]);
    expect(await where(deliveryId)).toEqual({ queue: 0, history: [{ status: 'SUCCEEDED' }] });
    expect(await read(deliveryId)).toMatchObject({
      deliveryId,
      status: 'SUCCEEDED',
      attempts: 2,
      lastResponseStatus: 204,
    });
    expect(await read(deliveryId)).not.toHaveProperty('nextAttemptAt');
  });

  it('a retry keeps a delivery in the queue; the API shows a queued delivery as a pending one', async () => {
    const endpointId = await disabledEndpoint();
    const token = randomUUID();
    const deliveryId = await queued(endpointId, { claimToken: token, attempts: 1 });
    const recorded = await t.app
      .get(Transactions)
      .runAlone((tx) =>
        t.app
          .get(WebhookDeliveriesRepository)
          .recordAttempt(
            tx,
            claimed(endpointId, deliveryId, token),
            { status: 'PENDING', responseStatus: 503, error: 'HTTP_STATUS', retryInMs: 60_000 },
            false,
          ),
      );
    expect(recorded.recorded).toBe(true);
    expect(await where(deliveryId)).toEqual({ queue: 1, history: [] });
    const delivery = await read(deliveryId);
    expect(delivery).toMatchObject({
      status: 'PENDING',
      attempts: 1,
      lastResponseStatus: 503,
      lastError: 'HTTP_STATUS',
    });
    expect(Date.parse(delivery.nextAttemptAt as string)).toBeGreaterThan(Date.now());
    const listed = await admin('GET', `${WEBHOOK_DELIVERIES}?webhookEndpointId=${endpointId}&status=PENDING`);
    expect(listed.json<{ content: WebhookDeliveryBody[] }>().content).toEqual([delivery]);
  });

  it('retention deletes old history only, never a pending delivery however old', async () => {
    const endpointId = await disabledEndpoint();
    // Pending 40 days: its endpoint was disabled, its deliveries wait for it to be enabled again.
    const waiting = await queued(endpointId, { createdDaysAgo: 40 });
    const old = await ended(endpointId, 40);
    const recent = await ended(endpointId, 1);

    const repository = t.app.get(WebhookDeliveriesRepository);
    for (;;) {
      const deleted = await t.app
        .get(Transactions)
        .runAlone((tx) => repository.purgeOlderThan(tx, 30, 1_000));
      if (deleted < 1_000) break;
    }

    expect(await where(waiting)).toEqual({ queue: 1, history: [] });
    expect((await read(waiting)).status).toBe('PENDING');
    expect(await where(old)).toEqual({ queue: 0, history: [] });
    expect((await admin('GET', `${WEBHOOK_DELIVERIES}/${old}`)).statusCode).toBe(404);
    expect(await where(recent)).toEqual({ queue: 0, history: [{ status: 'SUCCEEDED' }] });
    const listed = await admin('GET', `${WEBHOOK_DELIVERIES}?webhookEndpointId=${endpointId}`);
    expect(listed.json<{ content: WebhookDeliveryBody[] }>().content.map((d) => d.deliveryId)).toEqual([
      recent,
      waiting,
    ]);
  });
});

describe('the migration to the delivery queue', () => {
  const at = migrations.findIndex((migration) => migration.name === 'WebhookDeliveryQueue1763800021000');
  const name = `${new URL(DIRECT_URL).pathname.slice(1)}_queue_${randomUUID().slice(0, 8)}`;
  const url = new URL(DIRECT_URL);
  url.pathname = `/${name}`;
  let server: Client;
  let db: DataSource;

  beforeAll(async () => {
    server = new Client({ connectionString: DIRECT_URL });
    await server.connect();
    await server.query(`CREATE DATABASE ${name}`);
    db = await new DataSource({
      ...databaseOptions(url.toString()),
      migrations: migrations.slice(0, at),
    }).initialize();
    await db.runMigrations({ transaction: 'each' });
  });
  afterAll(async () => {
    await db?.destroy();
    await server.query(`DROP DATABASE IF EXISTS ${name}`);
    await server.end();
  });

  const COLUMNS = `delivery_id, webhook_endpoint_id, event_id, event_type, attempts, next_attempt_at, last_attempt_at,
    last_response_status, last_error, single_attempt, claimed_until, claim_token, created_at, updated_at`;

  it('moves the pending rows to the queue, as they were; the ended ones stay; the previous release lands in the queue', async () => {
    const [{ webhook_endpoint_id: endpointId }] = await db.query<Array<{ webhook_endpoint_id: string }>>(
      `INSERT INTO webhook_endpoints (url, secret_sealed) VALUES ('https://example.com/hook', 'sealed')
       RETURNING webhook_endpoint_id`,
    );
    await db.query(
      `INSERT INTO webhook_deliveries (webhook_endpoint_id, event_id, event_type, status, attempts, next_attempt_at,
                                       last_attempt_at, last_response_status, last_error, single_attempt,
                                       claimed_until, claim_token, created_at)
       VALUES ($1, gen_random_uuid(), 'ORDER_CREATED', 'PENDING', 0, now(), NULL, NULL, NULL, false, NULL, NULL,
               now() - interval '2 days'),
              ($1, gen_random_uuid(), 'ORDER_PAID', 'PENDING', 3, now() + interval '1 hour', now(), 503, 'HTTP_STATUS',
               false, NULL, NULL, now() - interval '1 day'),
              ($1, gen_random_uuid(), 'ORDER_PAID', 'PENDING', 1, now(), now(), NULL, NULL, true,
               now() + interval '3 seconds', gen_random_uuid(), now()),
              ($1, gen_random_uuid(), 'ORDER_CREATED', 'SUCCEEDED', 1, NULL, now(), 204, NULL, false, NULL, NULL,
               now() - interval '3 days'),
              ($1, gen_random_uuid(), 'ORDER_CREATED', 'FAILED', 8, NULL, now(), NULL, 'TIMEOUT', false, NULL, NULL,
               now() - interval '3 days')`,
      [endpointId],
    );
    const pendingBefore = await db.query<Array<Record<string, unknown>>>(
      `SELECT ${COLUMNS} FROM webhook_deliveries WHERE status = 'PENDING' ORDER BY delivery_id`,
    );
    const endedBefore = await db.query<Array<Record<string, unknown>>>(
      `SELECT * FROM webhook_deliveries WHERE status <> 'PENDING' ORDER BY delivery_id`,
    );
    expect(pendingBefore).toHaveLength(3);

    await db.destroy();
    db = await new DataSource({ ...databaseOptions(url.toString()), migrations }).initialize();
    const applied = await db.runMigrations({ transaction: 'each' });
    expect(applied.map((m) => m.name)).toEqual(migrations.slice(at).map((m) => new m().name));

    expect(await db.query(`SELECT ${COLUMNS} FROM webhook_delivery_queue ORDER BY delivery_id`)).toEqual(
      pendingBefore,
    );
    expect(await db.query('SELECT * FROM webhook_deliveries ORDER BY delivery_id')).toEqual(endedBefore);

    // The previous release, during the rollout: its fan-out's insert and its manual retry.
    await db.query(
      `INSERT INTO webhook_deliveries (webhook_endpoint_id, event_id, event_type, next_attempt_at)
       VALUES ($1, gen_random_uuid(), 'ORDER_SHIPPED', now())
       ON CONFLICT (webhook_endpoint_id, event_id) DO NOTHING`,
      [endpointId],
    );
    expect(
      await db.query("SELECT attempts FROM webhook_delivery_queue WHERE event_type = 'ORDER_SHIPPED'"),
    ).toEqual([{ attempts: 0 }]);
    const retried = endedBefore[1].delivery_id as string;
    await db.query(
      `UPDATE webhook_deliveries SET status = 'PENDING', next_attempt_at = now(), single_attempt = true,
              claimed_until = NULL, claim_token = NULL, updated_at = clock_timestamp()
        WHERE delivery_id = $1`,
      [retried],
    );
    expect(
      await db.query("SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_type = 'ORDER_SHIPPED'"),
    ).toEqual([{ n: 0 }]);
    expect(
      await db.query('SELECT single_attempt FROM webhook_delivery_queue WHERE delivery_id = $1', [retried]),
    ).toEqual([{ single_attempt: true }]);
    expect(await db.query('SELECT 1 FROM webhook_deliveries WHERE delivery_id = $1', [retried])).toEqual([]);

    // Reverted, the queue goes back to the table.
    await db.undoLastMigration({ transaction: 'each' });
    expect(
      await db.query("SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'PENDING'"),
    ).toEqual([{ n: 5 }]);
  });
});
