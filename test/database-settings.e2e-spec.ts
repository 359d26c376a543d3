import type { LightMyRequestResponse } from 'fastify';
import { DataSource } from 'typeorm';
import { PooledStatements } from '../src/database/pooled-statements';
import { ApiClient, apiClient, withIdempotencyKey } from './support/http-client';
import { multipartBody, sampleFile } from './support/multipart';
import { ORDERS } from './support/orders';
import { seedCustomer, seedOrders, seedProduct } from './support/seed';
import { bootTestApp, TestApp } from './support/test-app';
import { bearer } from './support/tokens';
import { eventually } from './support/wait';

/**
 * What holds wherever the service's connections land: on the run's database (DATABASE_URL, which CI's pooler
 * stage points at a transaction-pooling PgBouncer) and past any pooler (E2E_DIRECT_DATABASE_URL). Each
 * transaction sets the statement and idle-in-transaction limits itself, so they hold on both, and leaves
 * nothing on the session; and no answer depends on the session's time zone.
 */
const SERVICE_URL = process.env.DATABASE_URL as string;
const DIRECT_URL = process.env.E2E_DIRECT_DATABASE_URL ?? SERVICE_URL;
const ROUTES: Array<[string, string]> =
  SERVICE_URL === DIRECT_URL
    ? [['the database', SERVICE_URL]]
    : [
        ['the pooler', SERVICE_URL],
        ['the database directly', DIRECT_URL],
      ];

const LIMIT_MS = 500;

/** The SQLSTATE of a failed statement, from the driver or TypeORM's wrapper around it. */
function sqlState(error: unknown): string | undefined {
  const failed = error as { code?: string; driverError?: { code?: string } };
  return failed.driverError?.code ?? failed.code;
}

describe.each(ROUTES)('the limits hold through %s', (_route, url) => {
  let t: TestApp;
  let statements: PooledStatements;
  let dataSource: DataSource;

  beforeAll(async () => {
    t = await bootTestApp({
      DATABASE_URL: url,
      DB_STATEMENT_TIMEOUT_MS: String(LIMIT_MS),
      DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: String(LIMIT_MS),
    });
    statements = t.app.get(PooledStatements);
    dataSource = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  it('a statement outside a transaction past DB_STATEMENT_TIMEOUT_MS is cancelled', async () => {
    const error = await statements.rows('SELECT pg_sleep(5)', []).catch((e: unknown) => e);
    expect(sqlState(error)).toBe('57014');
  });

  it("a transaction's statement past DB_STATEMENT_TIMEOUT_MS is cancelled, a savepoint's too", async () => {
    const error = await dataSource
      .transaction((db) => db.query('SELECT pg_sleep(5)'))
      .catch((e: unknown) => e);
    expect(sqlState(error)).toBe('57014');
    const nested = await dataSource
      .transaction((db) => db.transaction((savepoint) => savepoint.query('SELECT pg_sleep(5)')))
      .catch((e: unknown) => e);
    expect(sqlState(nested)).toBe('57014');
  });

  it('a transaction left idle past DB_IDLE_IN_TRANSACTION_TIMEOUT_MS is ended, and its locks freed', async () => {
    const customerId = await seedCustomer(dataSource);
    const touch = 'UPDATE users SET segment = segment WHERE user_id = $1';
    const holder = dataSource.transaction(async (db) => {
      await db.query('SELECT 1 FROM users WHERE user_id = $1 FOR UPDATE', [customerId]);
      // Another writer of the row waits for the lock (each try ends at the statement timeout) until the
      // server ends this idle transaction and frees it.
      await eventually('the row lock freed', () =>
        statements.rowCount(touch, [customerId]).then(
          (n) => n,
          (error: unknown) => {
            if (sqlState(error) === '57014') return undefined;
            throw error;
          },
        ),
      );
      await db.query('SELECT 1');
    });
    await expect(holder).rejects.toThrow();
  });

  it('leaves nothing on the session: a connection back from a transaction has the server defaults', async () => {
    const runner = dataSource.createQueryRunner();
    try {
      await runner.connect();
      await runner.manager.transaction(async (db) => {
        expect(await db.query("SELECT current_setting('statement_timeout') AS value")).toEqual([
          { value: `${LIMIT_MS}ms` },
        ]);
      });
      const [{ value }] = (await runner.query(
        "SELECT current_setting('statement_timeout') AS value",
      )) as Array<{
        value: string;
      }>;
      expect(value).not.toBe(`${LIMIT_MS}ms`);
    } finally {
      await runner.release();
    }
  });
});

/**
 * Two apps on the same data: one on the service's connections (the database's default zone; CI's pooler
 * stage makes that America/St_Johns), one past any pooler whose sessions are in another zone (a startup option
 * in its URL, which a direct connection honours). Every answer must be the same. The orders sit around UTC
 * midnight, where a day computed in the session's zone would differ; their own queues, so each app's tasks
 * run under its own sessions.
 */
describe('a connection lost under a statement', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await bootTestApp();
  });
  afterAll(() => t.close());

  it('fails that statement only: the process goes on and the pool serves the next one', async () => {
    const statements = t.app.get(PooledStatements);
    const dataSource = t.app.get(DataSource);
    const marker = `SELECT pg_sleep(30) /* lost ${Date.now()} */`;
    const lost = statements.rows(marker, []).catch((e: unknown) => e);
    await eventually('the statement terminated by the server', async () => {
      const killed = (await dataSource.query(
        'SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE query = $1',
        [marker],
      )) as Array<{ killed: boolean }>;
      return killed.some((row) => row.killed) ? true : undefined;
    });
    expect(await lost).toBeInstanceOf(Error);
    await expect(statements.rows('SELECT 1 AS n', [])).resolves.toEqual([{ n: 1 }]);
  });
});

describe('no answer depends on the session time zone', () => {
  let a: TestApp;
  let b: TestApp;
  let zones: string[];
  const client: Record<'a' | 'b', { admin: ApiClient; customer: ApiClient }> = {} as never;
  let customerId: string;
  const day = { dateFrom: '2024-03-10', dateTo: '2024-03-10' };

  const zoneOf = async (t: TestApp) =>
    (
      await t.app
        .get(PooledStatements)
        .rows<{ zone: string }>("SELECT current_setting('TimeZone') AS zone", [])
    )[0].zone;

  beforeAll(async () => {
    a = await bootTestApp({ REDIS_URL: undefined });
    const zoneOfA = await zoneOf(a);
    // Both have offsets with seconds in their past, and half hours today, on either side of UTC.
    const zone = ['Asia/Kolkata', 'America/St_Johns'].find((z) => z !== zoneOfA) as string;
    const url = new URL(DIRECT_URL);
    url.searchParams.set('options', `-c TimeZone=${zone}`);
    b = await bootTestApp({ REDIS_URL: undefined, DATABASE_URL: url.toString() });
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
