import type { LightMyRequestResponse } from 'fastify';
import { Logger } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { AppConfig } from '../src/platform/config/app-config';
import { databaseOptions } from '../src/platform/database/database-options';
import type { DatabasePool } from '../src/platform/database/database-pool';
import { applyRoleDefaults, SessionLimits, sessionSettings } from '../src/platform/database/session-limits';
import { Sql } from '../src/platform/database/sql';
import { read, write } from '../src/platform/database/sql-statement';
import { StatementRunner } from '../src/platform/database/statement-runner';
import { Transactions } from '../src/platform/database/transactions';
import { ApiClient, apiClient, withIdempotencyKey } from './support/http-client';
import { multipartBody, sampleFile } from './support/multipart';
import { ORDERS } from './support/orders';
import { seedCustomer, seedOrders, seedProduct } from './support/seed';
import { bootTestApp, TestApp } from './support/test-app';
import { bearer } from './support/tokens';
import { eventually } from './support/wait';
import { NO_REDIS } from './support/redis';

/**
 * The statement and idle-in-transaction limits belong to the session: on a direct connection the service
 * asks for them when it connects; behind a transaction pooler, which drops startup options, they are the
 * role's defaults in its database, set by `npm run db:session-limits` (and the migrations Job). A statement
 * outside a transaction is sent alone. CI's pooler stage points DATABASE_URL at a transaction-pooling PgBouncer
 * (E2E_DIRECT_DATABASE_URL: the same database past it); the harness migrates as the Job does.
 */
const SERVICE_URL = process.env.DATABASE_URL as string;
const DIRECT_URL = process.env.E2E_DIRECT_DATABASE_URL ?? SERVICE_URL;
const BEHIND_POOLER = SERVICE_URL !== DIRECT_URL;

const LIMIT_MS = 500;
const SLEEP = read('SELECT pg_sleep(5)');

/** The SQLSTATE of a failed statement, from the driver or TypeORM's wrapper around it. */
function sqlState(error: unknown): string | undefined {
  const failed = error as { code?: string; driverError?: { code?: string } };
  return failed.driverError?.code ?? failed.code;
}

describe('on a direct connection the limits are asked for at connect', () => {
  let t: TestApp;
  let sql: Sql;
  let transactions: Transactions;

  beforeAll(async () => {
    t = await bootTestApp({
      DATABASE_URL: DIRECT_URL,
      DB_STATEMENT_TIMEOUT_MS: String(LIMIT_MS),
      DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: String(LIMIT_MS),
    });
    sql = t.app.get(Sql);
    transactions = t.app.get(Transactions);
  });
  afterAll(() => t.close());

  it('a statement outside a transaction is sent alone, and cancelled past DB_STATEMENT_TIMEOUT_MS', async () => {
    // Alone, a statement is its own transaction: it starts when the transaction does.
    const [alone] = await sql.rows<{ alone: boolean }>(read('SELECT now() = statement_timestamp() AS alone'));
    expect(alone.alone).toBe(true);
    expect(sqlState(await sql.rows(SLEEP).catch((e: unknown) => e))).toBe('57014');
  });

  it("a transaction's statement past DB_STATEMENT_TIMEOUT_MS is cancelled, a savepoint's too", async () => {
    const error = await transactions.run((tx) => tx.rows(SLEEP)).catch((e: unknown) => e);
    expect(sqlState(error)).toBe('57014');
    const nested = await transactions
      .run((tx) => tx.savepoint((savepoint) => savepoint.rows(SLEEP)))
      .catch((e: unknown) => e);
    expect(sqlState(nested)).toBe('57014');
  });

  it('a transaction left idle past DB_IDLE_IN_TRANSACTION_TIMEOUT_MS is ended, and its locks freed', async () => {
    const customerId = await seedCustomer(t.app.get(DataSource));
    const touch = write('UPDATE users SET segment = segment WHERE user_id = $1');
    const holder = transactions.runAlone(async (tx) => {
      await tx.rows(write('SELECT 1 FROM users WHERE user_id = $1 FOR UPDATE'), [customerId]);
      // Another writer of the row waits for the lock (each try ends at the statement timeout) until the
      // server ends this idle transaction and frees it.
      await eventually('the row lock freed', () =>
        transactions
          .runAlone((other) => other.rowCount(touch, [customerId]))
          .then(
            (n) => n,
            (error: unknown) => {
              if (sqlState(error) === '57014') return undefined;
              throw error;
            },
          ),
      );
      await tx.rows(read('SELECT 1'));
    });
    await expect(holder).rejects.toThrow();
  });

  it('the start-up check finds the limits it asked for, and /info shows them', async () => {
    expect(await t.app.get(SessionLimits).check()).toEqual([]);
    const info = await t.app.inject({ method: 'GET', url: '/info' });
    expect(info.json()).toMatchObject({
      sessionLimits: {
        statement_timeout: String(LIMIT_MS),
        idle_in_transaction_session_timeout: String(LIMIT_MS),
        jit: 'off',
      },
    });
  });
});

(BEHIND_POOLER ? describe : describe.skip)('behind the pooler the limits are the role defaults', () => {
  const runDatabase = new URL(DIRECT_URL).pathname.slice(1);
  const limits = sessionSettings({ statementTimeoutMs: LIMIT_MS, idleInTransactionTimeoutMs: LIMIT_MS });
  const made: string[] = [];
  const admin = new DataSource({ ...databaseOptions(DIRECT_URL), migrations: [] });

  /** A new database on the server; its URL past the pooler and through it. */
  async function database(suffix: string): Promise<{ direct: string; pooled: string }> {
    const name = `${runDatabase}_${suffix}`;
    await admin.query(`CREATE DATABASE ${name}`);
    made.push(name);
    const direct = new URL(DIRECT_URL);
    const pooled = new URL(SERVICE_URL);
    direct.pathname = pooled.pathname = `/${name}`;
    return { direct: direct.toString(), pooled: pooled.toString() };
  }

  /** The service's statements on a pool through the pooler, connecting as the service does. */
  async function servicePool(url: string) {
    const dataSource = await new DataSource({
      ...databaseOptions(url, limits),
      migrations: [],
    }).initialize();
    const pool = { pool: (dataSource.driver as PostgresDriver).master as Pool } as DatabasePool;
    const runner = new StatementRunner(dataSource.logger, Number.POSITIVE_INFINITY, false);
    const sql = new Sql(pool, runner, new Transactions(pool, runner));
    const config = {
      database: { limits: { statementTimeoutMs: LIMIT_MS, idleInTransactionTimeoutMs: LIMIT_MS } },
    };
    return { sql, check: new SessionLimits(sql, config as AppConfig), close: () => dataSource.destroy() };
  }

  beforeAll(() => admin.initialize());
  afterAll(async () => {
    for (const name of made) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.destroy();
  });

  it("the run's database, migrated as the Job does: its sessions have the service's limits", async () => {
    const t = await bootTestApp();
    try {
      expect(await t.app.get(SessionLimits).check()).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('without role defaults the startup options are dropped: the start-up check warns for each limit', async () => {
    const { pooled } = await database('bare');
    const service = await servicePool(pooled);
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      expect(await service.check.check()).toEqual([
        'statement_timeout',
        'idle_in_transaction_session_timeout',
        'jit',
      ]);
      expect(warn).toHaveBeenCalledTimes(3);
    } finally {
      warn.mockRestore();
      await service.close();
    }
  });

  it('with the role defaults (the command) a statement past the limit is cancelled through the pooler', async () => {
    const { direct, pooled } = await database('limited');
    const owner = await new DataSource({ ...databaseOptions(direct), migrations: [] }).initialize();
    await applyRoleDefaults(owner, limits);
    await owner.destroy();
    const service = await servicePool(pooled);
    try {
      expect(await service.check.check()).toEqual([]);
      expect(sqlState(await service.sql.rows(SLEEP).catch((e: unknown) => e))).toBe('57014');
    } finally {
      await service.close();
    }
  });
});

describe('a connection lost under a statement', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await bootTestApp();
  });
  afterAll(() => t.close());

  /** Ends the server session running `statement` once it runs. */
  const terminate = (statement: string) =>
    eventually('the statement terminated by the server', async () => {
      const killed = (await t.app
        .get(DataSource)
        .query('SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE query = $1', [
          statement,
        ])) as Array<{ killed: boolean }>;
      return killed.some((row) => row.killed) ? true : undefined;
    });

  it('fails that statement only: the process goes on and the pool serves the next one', async () => {
    const sql = t.app.get(Sql);
    const marker = `SELECT pg_sleep(30) /* lost ${Date.now()} */`;
    const lost = sql.rows(read(marker)).catch((e: unknown) => e);
    await terminate(marker);
    expect(await lost).toBeInstanceOf(Error);
    await expect(sql.rows(read('SELECT 1 AS n'))).resolves.toEqual([{ n: 1 }]);
  });

  it('in a transaction: fails that transaction only, and the pool serves the next one', async () => {
    const transactions = t.app.get(Transactions);
    const marker = `SELECT pg_sleep(30) /* lost in a transaction ${Date.now()} */`;
    const lost = transactions.run((tx) => tx.rows(read(marker))).catch((e: unknown) => e);
    await terminate(marker);
    expect(await lost).toBeInstanceOf(Error);
    await expect(transactions.run((tx) => tx.rows(read('SELECT 1 AS n')))).resolves.toEqual([{ n: 1 }]);
  });
});

/**
 * Two apps on the same data: one on the service's connections (the database's default zone; CI's pooler
 * stage makes that America/St_Johns), one past any pooler whose sessions are in another zone (a startup option
 * in its URL, which a direct connection honours). Every answer must be the same. The orders sit around UTC
 * midnight, where a day computed in the session's zone would differ; their own queues, so each app's tasks
 * run under its own sessions.
 */
describe('no answer depends on the session time zone', () => {
  let a: TestApp;
  let b: TestApp;
  let zones: string[];
  const client: Record<'a' | 'b', { admin: ApiClient; customer: ApiClient }> = {} as never;
  let customerId: string;
  const day = { dateFrom: '2024-03-10', dateTo: '2024-03-10' };

  const zoneOf = async (t: TestApp) =>
    (await t.app.get(Sql).rows<{ zone: string }>(read("SELECT current_setting('TimeZone') AS zone")))[0].zone;

  beforeAll(async () => {
    a = await bootTestApp(NO_REDIS);
    const zoneOfA = await zoneOf(a);
    // Both have offsets with seconds in their past, and half hours today, on either side of UTC.
    const zone = ['Asia/Kolkata', 'America/St_Johns'].find((z) => z !== zoneOfA) as string;
    const url = new URL(DIRECT_URL);
    url.searchParams.set('options', `-c TimeZone=${zone}`);
    b = await bootTestApp({ ...NO_REDIS, DATABASE_URL: url.toString() });
    zones = [zoneOfA, await zoneOf(b)];

    const db = a.app.get(DataSource);
    customerId = await seedCustomer(db);
    const product = await seedProduct(db, 'Zone widget', '2.50');
    // Just before, at and after UTC midnight of the 10th, and late on the 10th (the 11th east of UTC).
    for (const from of [
      '2024-03-09T23:59:59.500Z',
      '2024-03-10T00:00:00Z',
      '2024-03-10T02:00:00Z',
      '2024-03-10T21:00:00Z',
      '2024-03-11T00:00:00Z',
    ])
      await seedOrders(db, { customerId, count: 1, from, productId: product, unitPrice: '2.50' });

    const admin = await bearer(a.config, ['ADMIN']);
    const customer = await bearer(a.config, ['CUSTOMER'], customerId);
    for (const [name, t] of [
      ['a', a],
      ['b', b],
    ] as const)
      client[name] = { admin: apiClient(t, admin), customer: apiClient(t, customer) };
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  /** The same request to both apps: the answers, which must be equal. */
  async function both(
    request: (c: { admin: ApiClient; customer: ApiClient }) => Promise<LightMyRequestResponse>,
  ): Promise<LightMyRequestResponse> {
    const [fromA, fromB] = [await request(client.a), await request(client.b)];
    expect(fromA.statusCode).toBeLessThan(300);
    expect(fromB.statusCode).toBe(fromA.statusCode);
    expect(fromB.body).toBe(fromA.body);
    return fromA;
  }

  /** Starts a task through `c`, waits for it to complete; the result's URL. */
  async function completed(c: ApiClient, start: Promise<LightMyRequestResponse>): Promise<string> {
    const accepted = await start;
    expect(accepted.statusCode).toBe(202);
    const location = String(accepted.headers.location);
    const task = await eventually(`${location} completed`, async () => {
      const body = (await c('GET', location)).json<{ status: string; resultUrl?: string }>();
      return body.status === 'COMPLETED' ? body : undefined;
    });
    return String(task.resultUrl);
  }

  it('runs the two apps in different session zones', () => {
    expect(zones[1]).not.toBe(zones[0]);
  });

  it('orders, their lists and date filters: UTC days', async () => {
    const list = await both((c) => c.customer('GET', `${ORDERS}?size=20`));
    const ids = list.json<{ content: Array<{ orderId: string }> }>().content.map((o) => o.orderId);
    expect(ids).toHaveLength(5);
    for (const id of ids) await both((c) => c.customer('GET', `${ORDERS}/${id}`));
    const onTheTenth = await both((c) =>
      c.customer('GET', `${ORDERS}?dateFrom=${day.dateFrom}&dateTo=${day.dateTo}&size=20`),
    );
    expect(onTheTenth.json<{ totalElements: number }>().totalElements).toBe(3);
  });

  it('reports generated under either zone count the same UTC days', async () => {
    const range = { dateFrom: '2024-03-09', dateTo: '2024-03-11' };
    const reports = [];
    for (const c of [client.a, client.b]) {
      const result = await completed(
        c.admin,
        c.admin('POST', '/api/v1/reports/generate', { body: range, headers: withIdempotencyKey() }),
      );
      const {
        reportId: _id,
        generatedAt: _at,
        ...report
      } = (await c.admin('GET', result)).json<Record<string, unknown>>();
      reports.push(report);
    }
    expect(reports[1]).toEqual(reports[0]);
    expect(reports[0].daily).toEqual([
      { date: '2024-03-09', orderCount: 1, totalAmount: 2.5 },
      { date: '2024-03-10', orderCount: 3, totalAmount: 7.5 },
      { date: '2024-03-11', orderCount: 1, totalAmount: 2.5 },
    ]);
  });

  it('exports made under either zone are the same bytes', async () => {
    for (const format of ['JSON', 'CSV']) {
      const files = [];
      for (const c of [client.a, client.b]) {
        const result = await completed(
          c.customer,
          c.customer('POST', `/api/v1/customers/${customerId}/export`, {
            body: { format },
            headers: withIdempotencyKey(),
          }),
        );
        files.push((await c.customer('GET', result)).body);
      }
      expect(files[1]).toBe(files[0]);
    }
  });

  it('attachments, tasks, products, profiles and addresses read the same', async () => {
    const [{ orderId }] = (await client.a.customer('GET', `${ORDERS}?size=1`)).json<{
      content: Array<{ orderId: string }>;
    }>().content;
    const { payload, contentType } = multipartBody([
      { name: 'file', filename: 'zone.pdf', contentType: 'application/pdf', data: sampleFile('pdf') },
    ]);
    const uploaded = await a.app.inject({
      method: 'POST',
      url: `${ORDERS}/${orderId}/attachments`,
      headers: {
        authorization: await bearer(a.config, ['CUSTOMER'], customerId),
        'content-type': contentType,
      },
      payload,
    });
    expect(uploaded.json()).toMatchObject({ attachmentId: expect.any(String) });
    await both((c) => c.customer('GET', `${ORDERS}/${orderId}/attachments`));

    const address = await client.a.customer('POST', '/api/v1/delivery-addresses', {
      body: { streetName: 'Water Street 1', zipCode: '709010' },
      headers: withIdempotencyKey(),
    });
    expect(address.json()).toMatchObject({ addressId: expect.any(String) });
    await both((c) => c.customer('GET', '/api/v1/delivery-addresses'));
    await both((c) => c.customer('GET', '/api/v1/users/me'));
    await both((c) => c.admin('GET', '/api/v1/products?size=50'));
    const tasks = await client.a.admin('POST', '/api/v1/reports/generate', {
      body: day,
      headers: withIdempotencyKey(),
    });
    await completed(client.a.admin, Promise.resolve(tasks));
    await both((c) => c.admin('GET', String(tasks.headers.location)));
  });
});
