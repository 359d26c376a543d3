import { randomUUID } from 'node:crypto';
import {
  createOrderServiceClient,
  ifMatch,
  ProblemError,
  type OrderServiceClient,
} from '@order-service/client';
import { bootTestApp, listenOnFreePort, TestApp } from './support/test-app';
import { bearer } from './support/tokens';

/**
 * The service through its TypeScript client (client/), over HTTP: what a client application sees. The
 * client's own behaviour (headers, retries, timeouts) is tested against a local server in test/client/.
 */
describe('the service through @order-service/client', () => {
  let t: TestApp;
  let baseUrl: string;
  let adminToken: string;
  let admin: OrderServiceClient;
  let productId: string;

  beforeAll(async () => {
    t = await bootTestApp();
    baseUrl = await listenOnFreePort(t);
    adminToken = (await bearer(t.config, ['ADMIN'])).replace(/^Bearer /, '');
    admin = createOrderServiceClient({ baseUrl, token: adminToken, language: 'en' });
    const { data, error } = await admin.POST('/api/v1/products', {
      body: { name: `Client kettle ${randomUUID().slice(0, 8)}`, price: 12.5, stock: 1000 },
    });
    if (error) throw error;
    productId = data.productId;
  });
  afterAll(() => t.close());

  async function createOrder(client: OrderServiceClient, customerId?: string) {
    const { data, error } = await client.POST('/api/v1/orders', {
      body: { items: [{ productId, quantity: 1 }], customerId },
    });
    if (error) throw error;
    return data;
  }

  it('creates, confirms and reads an order; the error of a second confirm is typed by its code', async () => {
    const order = await createOrder(admin);
    const confirmed = await admin.POST('/api/v1/orders/{orderId}/confirm', {
      params: { path: { orderId: order.orderId } },
    });
    expect(confirmed.data?.status).toBe('CONFIRMED');

    const again = await admin.POST('/api/v1/orders/{orderId}/confirm', {
      params: { path: { orderId: order.orderId } },
    });
    expect(again.error).toBeInstanceOf(ProblemError);
    expect(again.error).toMatchObject({ status: 409, code: 'INVALID_ORDER_STATE' });
    expect(again.error?.traceId).toBe(again.response.headers.get('traceparent'));
    expect(again.error?.detail).toMatch(/\S/);
  });

  it('a retry after a lost answer carries the same Idempotency-Key: one order, the first answer replayed', async () => {
    // The transport loses the first answer after the service has created the order, as a dropped
    // connection would: the client's retry must not create a second one.
    let attempts = 0;
    const keys: string[] = [];
    const losingFirstAnswer = createOrderServiceClient({
      baseUrl,
      token: adminToken,
      retry: { baseDelayMs: 1 },
      fetch: async (request) => {
        keys.push(request.headers.get('Idempotency-Key') ?? '');
        const response = await fetch(request);
        if (++attempts === 1) throw new TypeError('fetch failed: the connection was reset');
        return response;
      },
    });
    const customerId = randomUUID();
    const { data, response } = await losingFirstAnswer.POST('/api/v1/orders', {
      body: { items: [{ productId, quantity: 1 }], customerId },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    const orders = [];
    for await (const order of admin.orders.all({ customerId })) orders.push(order.orderId);
    expect(orders).toEqual([data?.orderId]);
  });

  it('a validation problem carries its violations, in the language asked for', async () => {
    const russian = createOrderServiceClient({ baseUrl, token: adminToken, language: 'ru' });
    const body = { items: [{ productId, quantity: 0 }] };
    const [en, ru] = await Promise.all([
      admin.POST('/api/v1/orders', { body }),
      russian.POST('/api/v1/orders', { body }),
    ]);
    for (const { error } of [en, ru]) {
      expect(error).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
      expect(error?.violations.map((v) => v.field)).toEqual(['items[0].quantity']);
    }
    expect(en.error?.detail).not.toBe(ru.error?.detail);
    expect(en.response.headers.get('content-language')).toBe('en');
  });

  it('a change with If-Match from an earlier read applies once; a stale one is CONCURRENT_MODIFICATION', async () => {
    const order = await createOrder(admin);
    const path = { orderId: order.orderId };
    const read = await admin.GET('/api/v1/orders/{orderId}', { params: { path } });
    const first = await admin.PATCH('/api/v1/orders/{orderId}', {
      params: { path, header: { ...ifMatch(read) } },
      body: { note: 'ring twice' },
    });
    expect(first.data?.note).toBe('ring twice');
    const stale = await admin.PATCH('/api/v1/orders/{orderId}', {
      params: { path, header: { ...ifMatch(read) } },
      body: { note: 'knock' },
    });
    expect(stale.error?.code).toBe('CONCURRENT_MODIFICATION');
  });

  it('orders.all walks every page of a filtered list', async () => {
    const customerId = randomUUID();
    const orders = [];
    for (let i = 0; i < 5; i++) orders.push(await createOrder(admin, customerId));
    const confirmed = orders.slice(0, 3).map((order) => order.orderId);
    for (const orderId of confirmed) {
      const { error } = await admin.POST('/api/v1/orders/{orderId}/confirm', {
        params: { path: { orderId } },
      });
      if (error) throw error;
    }
    const walked = [];
    for await (const order of admin.orders.all({ customerId, status: ['CONFIRMED'], size: 2 })) {
      walked.push(order.orderId);
    }
    expect(walked.sort()).toEqual([...confirmed].sort());
  });

  it('asks a token function for every call, and a customer sees only their own orders', async () => {
    const customerId = randomUUID();
    const customerToken = (await bearer(t.config, ['CUSTOMER'], customerId)).replace(/^Bearer /, '');
    let asked = 0;
    const customer = createOrderServiceClient({
      baseUrl,
      token: () => {
        asked++;
        return customerToken;
      },
    });
    const own = await createOrder(customer);
    await createOrder(admin, randomUUID());
    const seen = [];
    for await (const order of customer.orders.all()) seen.push(order.orderId);
    expect(seen).toEqual([own.orderId]);
    expect(asked).toBe(2);

    const foreign = await customer.GET('/api/v1/orders/{orderId}', {
      params: { path: { orderId: (await createOrder(admin, randomUUID())).orderId } },
    });
    expect(foreign.error?.status).toBeGreaterThanOrEqual(403);
  });
});
