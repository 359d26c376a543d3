import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from 'pg';
import { loadConfig } from '../src/platform/config/app-config';
import { REQUEST_COMMITTED_CHANNEL } from '../src/platform/http/request-transaction';
import { ORDER_TRANSITIONS } from '../src/modules/orders/domain/order-state-machine';
import { freePort } from './support/net';
import { callerToken } from './support/tokens';
import { answers200, eventually } from './support/wait';

/**
 * Exactly once through crashes, for every operation that takes an Idempotency-Key: the built service runs in
 * a process of its own with test/support/crash-after-commit.cjs preloaded, which kills it (SIGKILL) right
 * after the request's transaction committed and before the answer left. The key's outcome is then already
 * committed with the change; a restarted process gets the client's retry with the same key and replays the
 * first outcome (`Idempotent-Replayed: true`), and the change is there once (rows, stock, versions, events, a
 * task that runs once). One process start serves the retry of one operation and the crash of the next.
 */
const ROOT = path.resolve(__dirname, '..');
const PRELOAD = path.join(ROOT, 'test/support/crash-after-commit.cjs');
const ENV: NodeJS.ProcessEnv = {
  ...process.env,
  HOST: '127.0.0.1',
  RATE_LIMIT_LIMIT: '1000000',
  LOG_LEVEL: 'warn',
};
const config = loadConfig(ENV);

interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

interface Service {
  child: ChildProcess;
  base: string;
  output: string;
}

/** A service process crashing after the commit of `crashAfter` (none when undefined), once it is ready. */
async function start(crashAfter?: string): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, ['-r', PRELOAD, 'dist/src/main.js'], {
    cwd: ROOT,
    env: { ...ENV, PORT: String(port), CRASH_AFTER_COMMIT: crashAfter ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const service: Service = { child, base: `http://127.0.0.1:${port}`, output: '' };
  child.stdout?.on('data', (d: Buffer) => (service.output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (service.output += d.toString()));
  await answers200(`${service.base}/ready`, {
    failsWhen: () =>
      child.exitCode === null ? undefined : `the service exited at start:\n${service.output}`,
    intervalMs: 100,
  });
  return service;
}

async function stop(service: Service | undefined): Promise<void> {
  if (!service || service.child.exitCode !== null || service.child.signalCode !== null) return;
  const exited = once(service.child, 'exit');
  service.child.kill('SIGTERM');
  await exited;
}

interface Call {
  method: 'POST' | 'PATCH' | 'GET';
  path: string;
  authorization: string;
  body?: unknown;
  key?: string;
  contentType?: string;
}

async function call(service: Service, request: Call): Promise<Reply> {
  const headers: Record<string, string> = { authorization: request.authorization, 'accept-language': 'en' };
  if (request.key) headers['idempotency-key'] = request.key;
  if (request.body !== undefined) headers['content-type'] = request.contentType ?? 'application/json';
  const res = await fetch(`${service.base}${request.path}`, {
    method: request.method,
    headers,
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

async function expectCall(service: Service, request: Call, status: number): Promise<Record<string, unknown>> {
  const reply = await call(service, request);
  if (reply.status !== status) {
    throw new Error(`${request.method} ${request.path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  }
  return reply.body;
}

describe('exactly once through a crash right after the commit, for every operation that takes a key', () => {
  let db: Client;
  let service: Service | undefined;
  let customer: { sub: string; authorization: string };
  let admin: { sub: string; authorization: string };
  const address = { streetName: 'Tverskaya 1', zipCode: '125009' };

  const product = async (stock: number): Promise<string> =>
    String(
      (
        await expectCall(
          service!,
          {
            method: 'POST',
            path: '/api/v1/products',
            authorization: admin.authorization,
            body: { name: `Crash ${randomUUID()}`, price: 10, stock },
          },
          201,
        )
      ).productId,
    );
  const order = async (items: Array<{ productId: string; quantity: number }>, owner = customer) =>
    String(
      (
        await expectCall(
          service!,
          {
            method: 'POST',
            path: '/api/v1/orders',
            authorization: owner.authorization,
            key: randomUUID(),
            body: { items, deliveryAddress: address },
          },
          201,
        )
      ).orderId,
    );
  const act = (orderId: string, action: string, body?: unknown) =>
    expectCall(
      service!,
      {
        method: 'POST',
        path: `/api/v1/orders/${orderId}/${action}`,
        authorization: ['ship', 'deliver', 'refund'].includes(action)
          ? admin.authorization
          : customer.authorization,
        body,
      },
      200,
    );

  const one = async <T>(sql: string, values: unknown[]): Promise<T> =>
    (await db.query(sql, values)).rows[0] as T;
  const stockOf = (productId: string) =>
    one<{ stock: number }>('SELECT stock FROM products WHERE product_id = $1', [productId]).then(
      (r) => r.stock,
    );
  const orderRow = (orderId: string) =>
    one<{ status: string; version: number; lines: number; events: number }>(
      `SELECT status, version, (SELECT count(*)::int FROM order_items i WHERE i.order_id = o.order_id) AS lines,
              (SELECT count(*)::int FROM events e WHERE e.order_id = o.order_id) AS events
         FROM orders o WHERE order_id = $1`,
      [orderId],
    );
  /** The order's ETag as a read answers it now: the replay's names the version the change made. */
  const etagOf = async (orderId: string) =>
    (
      await fetch(`${service!.base}/api/v1/orders/${orderId}`, {
        headers: { authorization: admin.authorization },
      })
    ).headers.get('etag');
  const ordersOf = (customerId: string) =>
    one<{ n: number }>('SELECT count(*)::int AS n FROM orders WHERE customer_id = $1', [customerId]).then(
      (r) => r.n,
    );

  /**
   * A keyed operation: `request` (its key set here) is sent to a process that crashes after its commit;
   * `before` is what the database holds before, `after` checks it after the retry's replay.
   */
  interface Operation<S> {
    operation: string;
    request: () => Promise<Call>;
    status: number;
    before: () => Promise<S>;
    after: (before: S, replay: Reply) => Promise<void>;
  }

  const operations: Array<[string, Operation<unknown>]> = [];
  function keyed<S>(name: string, operation: Operation<S>): void {
    operations.push([name, operation as Operation<unknown>]);
  }

  // Everything the operations start from, made before any process crashes.
  const made: Record<string, string> = {};

  beforeAll(async () => {
    expect(REQUEST_COMMITTED_CHANNEL).toBe('order-service:request-committed');
    db = new Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    customer = await callerToken(config, ['CUSTOMER']);
    admin = await callerToken(config, ['ADMIN']);
    service = await start();
    made.product = await product(1000);
    made.stockProduct = await product(50);
    made.editable = await order([{ productId: made.product, quantity: 1 }]);
    made.toConfirm = await order([{ productId: made.stockProduct, quantity: 3 }]);
    made.toCancel = await order([{ productId: made.stockProduct, quantity: 2 }]);
    await act(made.toCancel, 'confirm');
    made.toShip = await order([{ productId: made.product, quantity: 1 }]);
    await act(made.toShip, 'confirm');
    made.toDeliver = await order([{ productId: made.product, quantity: 1 }]);
    await act(made.toDeliver, 'confirm');
    await act(made.toDeliver, 'ship', { trackingNumber: 'TRK-1', carrier: 'CDEK' });
    made.toRefund = await order([{ productId: made.product, quantity: 1 }]);
    await act(made.toRefund, 'confirm');
    await act(made.toRefund, 'ship', { trackingNumber: 'TRK-2', carrier: 'CDEK' });
    made.batchFirst = await order([{ productId: made.stockProduct, quantity: 1 }]);
    made.batchSecond = await order([{ productId: made.stockProduct, quantity: 2 }]);
    made.itemTarget = await order([{ productId: made.product, quantity: 1 }]);
    made.itemsTarget = await order([{ productId: made.product, quantity: 1 }]);
    await stop(service);
    service = await start(operations[0][1].operation);
  });

  afterAll(async () => {
    await stop(service);
    await db?.end();
  });

  const CUSTOMER_ONLY = () => callerToken(config, ['CUSTOMER']);
  let batchCreator: { sub: string; authorization: string };
  let addressOwner: { sub: string; authorization: string };
  let addressId = '';

  keyed('POST /orders', {
    operation: 'POST /api/v1/orders',
    request: async () => ({
      method: 'POST',
      path: '/api/v1/orders',
      authorization: customer.authorization,
      body: { items: [{ productId: made.product, quantity: 2 }], note: `crash ${made.product}` },
    }),
    status: 201,
    before: async () => undefined,
    after: async (_before, replay) => {
      const { n } = await one<{ n: number }>('SELECT count(*)::int AS n FROM orders WHERE note = $1', [
        `crash ${made.product}`,
      ]);
      expect(n).toBe(1);
      expect(replay.headers.get('location')).toBe(`/api/v1/orders/${String(replay.body.orderId)}`);
      expect(await orderRow(String(replay.body.orderId))).toMatchObject({ events: 1 });
    },
  });

  keyed('PATCH /orders/{orderId}', {
    operation: 'PATCH /api/v1/orders/:orderId',
    request: async () => ({
      method: 'PATCH',
      path: `/api/v1/orders/${made.editable}`,
      authorization: customer.authorization,
      contentType: 'application/merge-patch+json',
      body: { note: 'patched once' },
    }),
    status: 200,
    before: () => orderRow(made.editable),
    after: async (before, replay) => {
      const now = await orderRow(made.editable);
      expect(now).toMatchObject({ version: before.version + 1, events: before.events + 1 });
      expect(replay.body).toMatchObject({ note: 'patched once' });
      expect(replay.headers.get('etag')).toBe(await etagOf(made.editable));
    },
  });

  const action = (
    name: string,
    orderKey: string,
    body: unknown,
    status: string,
    stock?: { product: string; change: number },
  ) =>
    keyed(`POST /orders/{orderId}/${name}`, {
      operation: `POST /api/v1/orders/:orderId/${name}`,
      request: async () => ({
        method: 'POST',
        path: `/api/v1/orders/${made[orderKey]}/${name}`,
        authorization: ['ship', 'deliver', 'refund'].includes(name)
          ? admin.authorization
          : customer.authorization,
        body,
      }),
      status: 200,
      before: async () => ({
        order: await orderRow(made[orderKey]),
        stock: stock ? await stockOf(made[stock.product]) : 0,
      }),
      after: async (before, replay) => {
        const now = await orderRow(made[orderKey]);
        expect(now).toMatchObject({
          status,
          version: before.order.version + 1,
          events: before.order.events + 1,
        });
        expect(replay.body).toMatchObject({ status });
        expect(replay.headers.get('etag')).toBe(await etagOf(made[orderKey]));
        if (stock) expect(await stockOf(made[stock.product])).toBe(before.stock + stock.change);
      },
    });
  action('confirm', 'toConfirm', undefined, 'CONFIRMED', { product: 'stockProduct', change: -3 });
  action('cancel', 'toCancel', { reason: 'changed my mind' }, 'CANCELLED', {
    product: 'stockProduct',
    change: 2,
  });
  action('ship', 'toShip', { trackingNumber: 'TRK-3', carrier: 'CDEK' }, 'SHIPPED');
  action('deliver', 'toDeliver', undefined, 'DELIVERED');
  action('refund', 'toRefund', { reason: 'damaged' }, 'REFUNDED');

  keyed('POST /orders/batch (partial success)', {
    operation: 'POST /api/v1/orders/batch',
    request: async () => {
      batchCreator = await CUSTOMER_ONLY();
      return {
        method: 'POST',
        path: '/api/v1/orders/batch',
        authorization: batchCreator.authorization,
        body: {
          items: [
            { productId: made.product, quantity: 1 },
            { productId: randomUUID(), quantity: 1 },
            { productId: made.product, quantity: 2 },
          ],
        },
      };
    },
    status: 200,
    before: async () => undefined,
    after: async (_before, replay) => {
      expect(await ordersOf(batchCreator.sub)).toBe(2);
      const { n } = await one<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE customer_id = $1', [
        batchCreator.sub,
      ]);
      expect(n).toBe(2);
      expect(replay.body.summary).toMatchObject({ succeeded: 2, failed: 1 });
    },
  });

  keyed('POST /orders/batch/confirm (partial success)', {
    operation: 'POST /api/v1/orders/batch/confirm',
    request: async () => ({
      method: 'POST',
      path: '/api/v1/orders/batch/confirm',
      authorization: customer.authorization,
      body: {
        items: [{ orderId: made.batchFirst }, { orderId: randomUUID() }, { orderId: made.batchSecond }],
      },
    }),
    status: 200,
    before: async () => ({
      first: await orderRow(made.batchFirst),
      second: await orderRow(made.batchSecond),
      stock: await stockOf(made.stockProduct),
    }),
    after: async (before, replay) => {
      expect(await orderRow(made.batchFirst)).toMatchObject({
        status: 'CONFIRMED',
        version: before.first.version + 1,
        events: before.first.events + 1,
      });
      expect(await orderRow(made.batchSecond)).toMatchObject({
        status: 'CONFIRMED',
        version: before.second.version + 1,
        events: before.second.events + 1,
      });
      expect(await stockOf(made.stockProduct)).toBe(before.stock - 3);
      expect(replay.body.summary).toMatchObject({ succeeded: 2, failed: 1 });
    },
  });

  keyed('POST /orders/{orderId}/items', {
    operation: 'POST /api/v1/orders/:orderId/items',
    request: async () => ({
      method: 'POST',
      path: `/api/v1/orders/${made.itemTarget}/items`,
      authorization: customer.authorization,
      body: { productId: made.product, quantity: 4 },
    }),
    status: 201,
    before: () => orderRow(made.itemTarget),
    after: async (before) => {
      expect(await orderRow(made.itemTarget)).toMatchObject({
        lines: before.lines + 1,
        version: before.version + 1,
        events: before.events + 1,
      });
    },
  });

  keyed('POST /orders/{orderId}/items/batch (all or nothing)', {
    operation: 'POST /api/v1/orders/:orderId/items/batch',
    request: async () => ({
      method: 'POST',
      path: `/api/v1/orders/${made.itemsTarget}/items/batch`,
      authorization: customer.authorization,
      body: {
        items: [
          { productId: made.product, quantity: 1 },
          { productId: made.stockProduct, quantity: 1 },
        ],
      },
    }),
    status: 200,
    before: () => orderRow(made.itemsTarget),
    after: async (before) => {
      expect(await orderRow(made.itemsTarget)).toMatchObject({
        lines: before.lines + 2,
        version: before.version + 1,
        events: before.events + 1,
      });
    },
  });

  keyed('POST /delivery-addresses', {
    operation: 'POST /api/v1/delivery-addresses',
    request: async () => {
      addressOwner = await CUSTOMER_ONLY();
      return {
        method: 'POST',
        path: '/api/v1/delivery-addresses',
        authorization: addressOwner.authorization,
        body: { streetName: 'Arbat 10', zipCode: '119002' },
      };
    },
    status: 201,
    before: async () => undefined,
    after: async (_before, replay) => {
      const { n } = await one<{ n: number }>(
        'SELECT count(*)::int AS n FROM delivery_addresses WHERE user_id = $1',
        [addressOwner.sub],
      );
      expect(n).toBe(1);
      expect(replay.body).toMatchObject({ streetName: 'Arbat 10', isDefault: true });
      addressId = String(replay.body.addressId);
    },
  });

  keyed('PATCH /delivery-addresses/{addressId}', {
    operation: 'PATCH /api/v1/delivery-addresses/:addressId',
    request: async () => ({
      method: 'PATCH',
      path: `/api/v1/delivery-addresses/${addressId}`,
      authorization: addressOwner.authorization,
      contentType: 'application/merge-patch+json',
      body: { streetName: 'Arbat 12' },
    }),
    status: 200,
    before: async () => undefined,
    after: async (_before, replay) => {
      const row = await one<{ street: string }>(
        'SELECT street_name AS street FROM delivery_addresses WHERE address_id = $1',
        [addressId],
      );
      expect(row.street).toBe('Arbat 12');
      expect(replay.body).toMatchObject({ addressId, streetName: 'Arbat 12' });
    },
  });

  // Webhook endpoints: create and rotate-secret answer with a secret, stored sealed with the key's outcome.
  let webhookEndpointId = '';
  keyed('POST /webhook-endpoints', {
    operation: 'POST /api/v1/webhook-endpoints',
    request: async () => ({
      method: 'POST',
      path: '/api/v1/webhook-endpoints',
      authorization: admin.authorization,
      // A literal public address: accepted without DNS; its event type is never recorded here.
      body: { url: `https://93.184.216.34/${randomUUID()}`, eventTypes: ['TASK_FAILED'] },
    }),
    status: 201,
    before: async () => undefined,
    after: async (_before, replay) => {
      webhookEndpointId = String(replay.body.webhookEndpointId);
      const { n } = await one<{ n: number }>(
        'SELECT count(*)::int AS n FROM webhook_endpoints WHERE url = $1',
        [replay.body.url],
      );
      expect(n).toBe(1);
      expect(replay.body.secret).toMatch(/^whsec_/);
    },
  });

  keyed('POST /webhook-endpoints/{webhookEndpointId}/rotate-secret', {
    operation: 'POST /api/v1/webhook-endpoints/:webhookEndpointId/rotate-secret',
    request: async () => ({
      method: 'POST',
      path: `/api/v1/webhook-endpoints/${webhookEndpointId}/rotate-secret`,
      authorization: admin.authorization,
      body: { oldSecretExpiresInSeconds: 60 },
    }),
    status: 200,
    before: async () =>
      (
        await one<{ version: number }>(
          'SELECT version FROM webhook_endpoints WHERE webhook_endpoint_id = $1',
          [webhookEndpointId],
        )
      ).version,
    after: async (before, replay) => {
      const { version } = await one<{ version: number }>(
        'SELECT version FROM webhook_endpoints WHERE webhook_endpoint_id = $1',
        [webhookEndpointId],
      );
      expect(version).toBe((before as number) + 1);
      expect(replay.body.secret).toMatch(/^whsec_/);
    },
  });

  /** The caller's tasks of `type`: there must be one, and it completes after one run. */
  async function expectOneTaskRun(ownerId: string, type: string): Promise<void> {
    const task = await eventually(
      `the ${type} task of ${ownerId} to complete`,
      async () => {
        const { rows } = await db.query<{ taskId: string; status: string; attempts: number }>(
          'SELECT task_id AS "taskId", status, attempts FROM tasks WHERE owner_id = $1 AND type = $2',
          [ownerId, type],
        );
        expect(rows).toHaveLength(1);
        return rows[0].status === 'COMPLETED' ? rows[0] : undefined;
      },
      { intervalMs: 100 },
    );
    expect(task.attempts).toBe(1);
    const { n } = await one<{ n: number }>(
      "SELECT count(*)::int AS n FROM events WHERE task_id = $1 AND type = 'TASK_COMPLETED'",
      [task.taskId],
    );
    expect(n).toBe(1);
  }

  let reporter: { sub: string; authorization: string };
  keyed('POST /reports/generate (a task)', {
    operation: 'POST /api/v1/reports/generate',
    request: async () => {
      reporter = await callerToken(config, ['ADMIN']);
      const today = new Date().toISOString().slice(0, 10);
      return {
        method: 'POST',
        path: '/api/v1/reports/generate',
        authorization: reporter.authorization,
        body: { dateFrom: today, dateTo: today },
      };
    },
    status: 202,
    before: async () => undefined,
    after: async (_before, replay) => {
      expect(replay.headers.get('location')).toBe(`/api/v1/tasks/${String(replay.body.taskId)}`);
      await expectOneTaskRun(reporter.sub, 'REPORT_GENERATION');
    },
  });

  let exporter: { sub: string; authorization: string };
  keyed('POST /customers/{customerId}/export (a task)', {
    operation: 'POST /api/v1/customers/:customerId/export',
    request: async () => {
      exporter = await CUSTOMER_ONLY();
      return {
        method: 'POST',
        path: `/api/v1/customers/${exporter.sub}/export`,
        authorization: exporter.authorization,
        body: { format: 'CSV' },
      };
    },
    status: 202,
    before: async () => undefined,
    after: async () => {
      await expectOneTaskRun(exporter.sub, 'CUSTOMER_EXPORT');
    },
  });

  it('covers every operation marked @Idempotent()', () => {
    const controllers = readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }).filter(
      (file) => file.endsWith('.controller.ts'),
    );
    const marked = controllers.reduce(
      (n, file) =>
        n + (readFileSync(path.join(ROOT, 'src', file), 'utf8').match(/@Idempotent\(/g)?.length ?? 0),
      0,
    );
    // The action routes are marked through ActionRoute, once for all: one operation per action here.
    const actions = operations.filter(([, o]) =>
      /\/:orderId\/(?:confirm|cancel|ship|deliver|refund)$/.test(o.operation),
    );
    expect(actions).toHaveLength(Object.keys(ORDER_TRANSITIONS).length);
    expect(operations.length - actions.length).toBe(marked);
  });

  operations.forEach(([name, operation], index) => {
    it(`${name}: the retry after the crash replays the first outcome, the change is applied once`, async () => {
      const request = { ...(await operation.request()), key: randomUUID() };
      const before = await operation.before();
      const crashed = service!;
      const exited = once(crashed.child, 'exit');
      await expect(call(crashed, request)).rejects.toThrow();
      const [, signal] = (await exited) as [number | null, NodeJS.Signals | null];
      expect(signal).toBe('SIGKILL');
      // The outcome committed with the change, before the answer could leave.
      const key = await one<{ state: string; status: number } | undefined>(
        'SELECT state, response_status AS status FROM idempotency_keys WHERE idempotency_key = $1',
        [request.key],
      );
      expect(key).toEqual({ state: 'COMPLETED', status: operation.status });

      service = await start(operations[index + 1]?.[1].operation);
      const replay = await call(service, request);
      expect(replay.status).toBe(operation.status);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      await operation.after(before, replay);
    });
  });
});
