import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import pg from 'pg';
import type { StoredEvent } from '../src/modules/events/domain/event';
import { EventMaintenance } from '../src/modules/events/event-maintenance.service';
import {
  type ClaimedDelivery,
  DELIVERY_HISTORY,
  WebhookDeliveriesRepository,
} from '../src/modules/webhooks/persistence/webhook-deliveries.repository';
import { WebhookFanOutRepository } from '../src/modules/webhooks/persistence/webhook-fan-out.repository';
import { databaseOptions } from '../src/platform/database/database-options';
import { dayPartitionName } from '../src/platform/database/time-partitions';
import { Transactions } from '../src/platform/database/transactions';
import { adminClient } from './support/callers';
import { apiClient, ApiClient } from './support/http-client';
import { migrateDatabase, migrationsUpTo } from './support/scratch-migrations';
import { bootTestApp, TestApp } from './support/test-app';
import { bearer } from './support/tokens';
import { createEndpoint, until, WEBHOOK_DELIVERIES, WebhookDeliveryBody } from './support/webhooks';

/**
 * The pending deliveries are a work queue of their own, the ended ones the history
 * (docs/decisions/0154-webhook-delivery-queue.md): a delivery leaves the queue for the history once, by the
 * record of the attempt that ends it, even when two workers hold it (a lease ran out) and record together;
 * retention empties the history and never touches the queue; the migration moves the pending rows of the
 * table as it was, and the previous release's writes of pending rows land in the queue. The history is
 * partitioned by day (on a database of the test's own): the migration attaches a seeded table without a
 * copy, retention drops a day of history and leaves pending work, a row with no day of its own is counted in
 * the default partition, and an endpoint gets one delivery of an event however often its batch is handed.
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
        `INSERT INTO webhook_delivery_history (delivery_id, webhook_endpoint_id, event_id, event_type, status,
                                               attempts, last_attempt_at, last_response_status, created_at, updated_at)
         VALUES (gen_random_uuid(), $1, gen_random_uuid(), 'ORDER_CREATED', 'SUCCEEDED', 1, now(), 204,
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
      'SELECT status FROM webhook_delivery_history WHERE delivery_id = $1',
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
          30,
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
            30,
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

    // The history's rows made before partitioning (here: below the cut) are deleted in batches.
    await t.app.get(EventMaintenance).applyRetention();

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
      migrations: migrationsUpTo('WebhookDeliveryQueue1763800021000', 'before'),
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
    db = await new DataSource({
      ...databaseOptions(url.toString()),
      migrations: migrationsUpTo('WebhookDeliveryQueue1763800021000', 'through'),
    }).initialize();
    const applied = await db.runMigrations({ transaction: 'each' });
    expect(applied.map((m) => m.name)).toEqual(['WebhookDeliveryQueue1763800021000']);

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

describe('the history partitioned by day', () => {
  const DAY = 86_400_000;
  const SEEDED = 20_000;
  const name = `${new URL(DIRECT_URL).pathname.slice(1)}_history_${randomUUID().slice(0, 8)}`;
  const url = new URL(DIRECT_URL);
  url.pathname = `/${name}`;
  const server = new pg.Pool({ connectionString: DIRECT_URL, max: 1 });
  let db: pg.Pool;
  let t: TestApp;
  let api: ApiClient;
  let seededEndpoint = '';

  const migrate = (list?: Parameters<typeof migrateDatabase>[1]) => migrateDatabase(url.toString(), list);
  const count = async (sql: string, values: unknown[] = []) =>
    (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, values)).rows[0].n;

  beforeAll(async () => {
    await server.query(`CREATE DATABASE ${name}`);
    db = new pg.Pool({ connectionString: url.toString(), max: 4 });
    db.on('error', () => undefined);
  });
  afterAll(async () => {
    await t?.close();
    await db.end();
    await server.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await server.end();
  });

  it('attaches a seeded history below a cut without copying it; the previous release still writes to the queue', async () => {
    await migrate(migrationsUpTo('WebhookDeliveryQueue1763800021000', 'through'));
    seededEndpoint = (
      await db.query<{ id: string }>(
        `INSERT INTO webhook_endpoints (url, secret_sealed) VALUES ('https://example.com/hook', 'sealed')
         RETURNING webhook_endpoint_id AS id`,
      )
    ).rows[0].id;
    await db.query(
      `INSERT INTO webhook_deliveries (webhook_endpoint_id, event_id, event_type, status, attempts, last_attempt_at,
                                       created_at)
       SELECT $1, gen_random_uuid(), 'ORDER_UPDATED', 'SUCCEEDED', 1, now(),
              now() - interval '20 days' + g * interval '20 days' / $2
         FROM generate_series(1, $2) g`,
      [seededEndpoint, SEEDED],
    );
    const before = await db.query<{ oid: number }>(`SELECT 'webhook_deliveries'::regclass::oid AS oid`);
    await migrate();

    const legacy = await db.query<{ oid: number; bound: string }>(
      `SELECT c.oid, pg_get_expr(c.relpartbound, c.oid) AS bound FROM pg_class c WHERE c.relname = 'webhook_deliveries'`,
    );
    expect(legacy.rows[0].oid).toBe(before.rows[0].oid);
    expect(legacy.rows[0].bound).toMatch(/^FOR VALUES FROM \(MINVALUE\) TO/);
    expect(await count('ONLY webhook_deliveries')).toBe(SEEDED);
    expect(await count(`pg_class WHERE relname ~ '^webhook_delivery_history_p[0-9]{8}$'`)).toBe(7);
    expect(await count('webhook_delivery_history_default')).toBe(0);
    // Every index of the history is one the old table had (built before, CONCURRENTLY): none built at the attach.
    const attached = await db.query<{ parent: string; child: string }>(
      `SELECT p.relname AS parent, c.relname AS child
         FROM pg_index x JOIN pg_class p ON p.oid = x.indexrelid
         JOIN pg_inherits i ON i.inhparent = p.oid JOIN pg_class c ON c.oid = i.inhrelid
        WHERE x.indrelid = 'webhook_delivery_history'::regclass AND c.relname LIKE 'webhook_deliveries%'
        ORDER BY 1`,
    );
    expect(attached.rows).toEqual([
      { parent: 'webhook_delivery_history_created_idx', child: 'webhook_deliveries_created_idx' },
      { parent: 'webhook_delivery_history_endpoint_idx', child: 'webhook_deliveries_endpoint_created_idx' },
      { parent: 'webhook_delivery_history_event_idx', child: 'webhook_deliveries_event_idx' },
      { parent: 'webhook_delivery_history_pkey', child: 'webhook_deliveries_id_at_pkey' },
    ]);
    const key = await db.query<{ def: string }>(
      `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint
        WHERE conrelid = 'webhook_delivery_history'::regclass AND contype = 'p'`,
    );
    expect(key.rows[0].def).toBe('PRIMARY KEY (delivery_id, created_at)');

    // The previous release, during the rollout: its fan-out names the old table's unique key.
    await db.query(
      `INSERT INTO webhook_deliveries (webhook_endpoint_id, event_id, event_type, next_attempt_at)
       VALUES ($1, gen_random_uuid(), 'ORDER_SHIPPED', now())
       ON CONFLICT (webhook_endpoint_id, event_id) DO NOTHING`,
      [seededEndpoint],
    );
    expect(await count("webhook_delivery_queue WHERE event_type = 'ORDER_SHIPPED'")).toBe(1);
    // A delivery made now carries its time in its id.
    const made = await db.query<{ id: string; at: Date }>(
      `INSERT INTO webhook_delivery_queue (webhook_endpoint_id, event_id, event_type, next_attempt_at)
       VALUES ($1, gen_random_uuid(), 'ORDER_PAID', now()) RETURNING delivery_id AS id, created_at AS at`,
      [seededEndpoint],
    );
    const id = made.rows[0].id;
    expect(id[14]).toBe('7');
    expect(Math.abs(parseInt(id.slice(0, 8) + id.slice(9, 13), 16) - made.rows[0].at.getTime())).toBeLessThan(
      1_000,
    );
  });

  describe('with past days of their own', () => {
    const today = Math.floor(Date.now() / DAY) * DAY;
    const d1 = new Date(today - 3 * DAY);
    const d2 = new Date(today - 2 * DAY);
    let endpointId = '';

    /** An ended delivery in the history, created at `at`; its id carries `at` unless `timeless`. */
    const ended = async (at: Date, timeless = false) =>
      (
        await db.query<{ id: string }>(
          `INSERT INTO webhook_delivery_history (delivery_id, webhook_endpoint_id, event_id, event_type, status,
                                                 attempts, created_at)
           VALUES (CASE WHEN $3 THEN gen_random_uuid() ELSE uuid_v7($2) END, $1, gen_random_uuid(),
                   'ORDER_CREATED', 'SUCCEEDED', 1, $2)
           RETURNING delivery_id AS id`,
          [endpointId, at, timeless],
        )
      ).rows[0].id;
    const queued = async (createdDaysAgo: number, claimToken: string | null = null) =>
      (
        await db.query<{ id: string }>(
          `INSERT INTO webhook_delivery_queue (webhook_endpoint_id, event_id, event_type, attempts, next_attempt_at,
                                               claimed_until, claim_token, created_at)
           VALUES ($1, gen_random_uuid(), 'ORDER_CREATED', 1, now(),
                   CASE WHEN $3::uuid IS NOT NULL THEN now() + interval '1 minute' END, $3,
                   now() - make_interval(days => $2))
           RETURNING delivery_id AS id`,
          [endpointId, createdDaysAgo, claimToken],
        )
      ).rows[0].id;
    const status = async (deliveryId: string) => {
      const response = await api('GET', `${WEBHOOK_DELIVERIES}/${deliveryId}`);
      return response.statusCode === 200 ? response.json<WebhookDeliveryBody>().status : response.statusCode;
    };
    const metric = async () => {
      const response = await t.app.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/metrics' });
      return /^db_default_partition_rows\{table="webhook_delivery_history"\} (-?\d+)$/m.exec(
        response.body,
      )?.[1];
    };

    beforeAll(async () => {
      // The old table and its rows go; days from three days ago on are made as the job makes days ahead.
      await db.query('ALTER TABLE webhook_delivery_history DETACH PARTITION webhook_deliveries');
      await db.query('DROP TABLE webhook_deliveries');
      // The seeded endpoint's secret is a stand-in: its deliveries are not to be claimed.
      await db.query("UPDATE webhook_endpoints SET status = 'DISABLED', disabled_reason = 'MANUAL'");
      t = await bootTestApp({
        DATABASE_URL: url.toString(),
        DATABASE_REPLICA_URLS: undefined,
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      });
      api = apiClient(t, await bearer(t.config, ['ADMIN']));
      await t.app.get(EventMaintenance).makeDaysAhead(d1);
      endpointId = (await createEndpoint(api, { url: 'http://127.0.0.1:9/history' })).webhookEndpointId;
      // No worker claims from it; the fan-out goes by its recorded changes (enabled), not by this.
      await db.query(
        "UPDATE webhook_endpoints SET status = 'DISABLED', disabled_reason = 'MANUAL' WHERE webhook_endpoint_id = $1",
        [endpointId],
      );
    });

    it('retention drops a day of the history whole and leaves pending work, however old', async () => {
      const [first, second] = [await ended(new Date(d1.getTime() + 3_600_000)), await ended(d2)];
      const waiting = [await queued(40), await queued(3)];
      expect(await status(first)).toBe('SUCCEEDED');

      const retention = t.config.events.retentionDays;
      // The day after d1 is when d1 is wholly past the retention of a clock `retention` days on.
      const { partitions } = await t.app
        .get(EventMaintenance)
        .applyRetention(new Date(d2.getTime() + retention * DAY));
      expect(partitions).toEqual([dayPartitionName(DELIVERY_HISTORY, d1)]);
      expect(await count('pg_class WHERE relname = $1', [dayPartitionName(DELIVERY_HISTORY, d1)])).toBe(0);
      expect(await status(first)).toBe(404);
      expect(await status(second)).toBe('SUCCEEDED');
      for (const id of waiting) expect(await status(id)).toBe('PENDING');
      expect(await count('webhook_delivery_queue WHERE delivery_id = ANY ($1)', [waiting])).toBe(2);
    });

    it('a history row with no day of its own lands in the default partition, counted, until its day is made', async () => {
      await db.query(`DROP TABLE ${dayPartitionName(DELIVERY_HISTORY, new Date(today))}`);
      const id = await ended(new Date());
      expect(await count('webhook_delivery_history_default')).toBe(1);
      expect(await metric()).toBe('1');
      expect(await status(id)).toBe('SUCCEEDED');

      expect(await t.app.get(EventMaintenance).makeDaysAhead()).toEqual([
        dayPartitionName(DELIVERY_HISTORY, new Date(today)),
      ]);
      expect(await count('webhook_delivery_history_default')).toBe(0);
      expect(await metric()).toBe('0');
      expect(await status(id)).toBe('SUCCEEDED');
    });

    it('reads a delivery by id in the day its id names, and one whose id has no time in every day', async () => {
      const dated = await ended(new Date(d2.getTime() + 60_000));
      const timeless = await ended(new Date(d2.getTime() + 120_000), true);
      expect(await status(dated)).toBe('SUCCEEDED');
      expect(await status(timeless)).toBe('SUCCEEDED');
      const listed = await api(
        'GET',
        `${WEBHOOK_DELIVERIES}?webhookEndpointId=${endpointId}&status=SUCCEEDED`,
      );
      const ids = listed.json<{ content: WebhookDeliveryBody[] }>().content.map((d) => d.deliveryId);
      expect(ids.indexOf(timeless)).toBe(ids.indexOf(dated) - 1); // newest first, across the days
    });

    it('an endpoint gets one delivery of an event, pending or ended, however often its batch is handed', async () => {
      const fanOut = t.app.get(WebhookFanOutRepository);
      const transactions = t.app.get(Transactions);
      // An event numbered while its endpoint was enabled; then no worker claims from the endpoint (disabled).
      const { webhookEndpointId } = await createEndpoint(api, { url: 'http://127.0.0.1:9/fan-out' });
      const [{ n }] = (await db.query<{ n: string }>("SELECT nextval('events_sequence')::text AS n")).rows;
      await db.query(
        "UPDATE webhook_endpoints SET status = 'DISABLED', disabled_reason = 'MANUAL' WHERE webhook_endpoint_id = $1",
        [webhookEndpointId],
      );
      const event: StoredEvent = {
        eventId: randomUUID(),
        type: 'ORDER_CREATED',
        sequence: Number(n),
        occurredAt: new Date(Date.now() - 1_000),
        data: {},
      };
      const hand = () => transactions.runAlone((tx) => fanOut.fanOut(tx, [event]));
      const copies = () =>
        count(
          `(SELECT 1 FROM webhook_delivery_queue WHERE webhook_endpoint_id = $1 AND event_id = $2
            UNION ALL
            SELECT 1 FROM webhook_delivery_history WHERE webhook_endpoint_id = $1 AND event_id = $2) d`,
          [webhookEndpointId, event.eventId],
        );
      expect(await hand()).toBe(1);
      expect(await hand()).toBe(0); // pending: the queue's key
      expect(await copies()).toBe(1);

      // It ends (its holder records a success): it moves to the history.
      const token = randomUUID();
      const { rows } = await db.query<{ id: string }>(
        `UPDATE webhook_delivery_queue SET claim_token = $3, claimed_until = now() + interval '1 minute'
          WHERE webhook_endpoint_id = $1 AND event_id = $2 RETURNING delivery_id AS id`,
        [webhookEndpointId, event.eventId, token],
      );
      const recorded = await transactions.runAlone((tx) =>
        t.app.get(WebhookDeliveriesRepository).recordAttempt(
          tx,
          {
            deliveryId: rows[0].id,
            webhookEndpointId,
            eventId: event.eventId,
            eventType: event.type,
            url: 'http://127.0.0.1:9/fan-out',
            secrets: { current: 'unused' },
            attempt: 1,
            singleAttempt: false,
            probe: false,
            claimToken: token,
            createdAt: new Date(),
          },
          { status: 'SUCCEEDED', responseStatus: 204, error: undefined },
          false,
          30,
        ),
      );
      expect(recorded.recorded).toBe(true);
      expect(await count('webhook_delivery_history WHERE delivery_id = $1', [rows[0].id])).toBe(1);
      expect(await hand()).toBe(0); // ended: found in the history
      expect(await copies()).toBe(1);
    });

    it("a delivery ending past the history's retention is not kept (its day is gone)", async () => {
      const token = randomUUID();
      const old = await queued(40, token);
      const recorded = await t.app.get(Transactions).runAlone((tx) =>
        t.app.get(WebhookDeliveriesRepository).recordAttempt(
          tx,
          {
            deliveryId: old,
            webhookEndpointId: endpointId,
            eventId: randomUUID(),
            eventType: 'ORDER_CREATED',
            url: 'http://127.0.0.1:9/history',
            secrets: { current: 'unused' },
            attempt: 2,
            singleAttempt: false,
            probe: false,
            claimToken: token,
            createdAt: new Date(),
          },
          { status: 'FAILED', responseStatus: 500, error: 'HTTP_STATUS' },
          false,
          30,
        ),
      );
      expect(recorded.recorded).toBe(true);
      expect(await status(old)).toBe(404);
      expect(await count('webhook_delivery_history_default')).toBe(0);
    });
  });
});
