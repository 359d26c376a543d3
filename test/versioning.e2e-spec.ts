import { randomUUID } from 'node:crypto';
import type { OpenAPIObject, ResponseObject } from '@nestjs/swagger';
import type { LightMyRequestResponse } from 'fastify';
import { Clock } from '../src/platform/versioning/clock';
import { adminClient, customerClient } from './support/callers';
import { ApiClient, apiClient, MERGE_PATCH } from './support/http-client';
import { createOrder, Order } from './support/orders';
import { expectProblem, expectProblemEnvelope } from './support/problem';
import { createProduct } from './support/products';
import { bootTestApp, TestApp } from './support/test-app';

interface MoneyV2 {
  amount: string;
  currency: string;
}

interface OrderV2 {
  orderId: string;
  status: string;
  total: MoneyV2;
  items: Array<{ itemId: string; productName: string; quantity: number; unitPrice: MoneyV2 }>;
  [member: string]: unknown;
}

interface Page<T> {
  content: T[];
  [member: string]: unknown;
}

const LEGACY_SUNSET = '2027-08-31T00:00:00Z';
const LEGACY_SUNSET_HTTP_DATE = 'Tue, 31 Aug 2027 00:00:00 GMT';
const LEGACY_STATUS_PATH = '/api/v1/orders/{orderId}/status';

const statusOf = (orderId: string) => `/api/v1/orders/${orderId}/status`;
const successorOf = (orderId: string) => `/api/v2/orders/${orderId}`;

async function servedDocument(t: TestApp): Promise<OpenAPIObject> {
  const res = await t.app.inject({ method: 'GET', url: '/docs/openapi.json' });
  expect(res.statusCode).toBe(200);
  return res.json<OpenAPIObject>();
}

/** The deprecation headers of a response of the legacy status endpoint for `orderId`. */
function expectDeprecationHeaders(res: LightMyRequestResponse, orderId: string): void {
  expect({
    deprecation: res.headers.deprecation,
    sunset: res.headers.sunset,
    link: res.headers.link,
  }).toEqual({
    deprecation: 'true',
    sunset: LEGACY_SUNSET_HTTP_DATE,
    link: `<${successorOf(orderId)}>; rel="successor-version"`,
  });
}

describe('API versions', () => {
  let t: TestApp;
  let admin: ApiClient;
  let alice: ApiClient;
  let bob: ApiClient;
  let full: Order;
  let empty: Order;
  let spoons: Order;

  beforeAll(async () => {
    t = await bootTestApp({ LEGACY_STATUS_SUNSET: LEGACY_SUNSET });
    admin = await adminClient(t);
    alice = await customerClient(t);
    bob = await customerClient(t);
    const kettle = await createProduct(admin, { name: 'Kettle', price: 1999.9, stock: 10 });
    const mug = await createProduct(admin, { name: 'Mug', price: 250.05, stock: 10 });
    const spoon = await createProduct(admin, { name: 'Spoon', price: 0.5, stock: 100 });
    full = await createOrder(alice, {
      items: [
        { productId: kettle.productId, quantity: 1 },
        { productId: mug.productId, quantity: 2 },
      ],
      deliveryAddress: { streetName: 'Tverskaya 1', zipCode: '125009' },
      note: 'ring twice',
    });
    empty = await createOrder(alice);
    spoons = await createOrder(alice, { items: [{ productId: spoon.productId, quantity: 3 }] });
  });
  afterAll(() => t.close());

  describe('v2 orders: the v1 orders with money as objects', () => {
    it('GET /api/v2/orders/{orderId}: total and unit prices as {amount, currency}, 2 decimals as text', async () => {
      const res = await alice('GET', successorOf(full.orderId));
      expect(res.statusCode).toBe(200);
      const order = res.json<OrderV2>();
      const { totalAmount: _total, items: v1Items, ...sameInBoth } = full;
      expect(order).toEqual({
        ...sameInBoth,
        total: { amount: '2500.00', currency: 'RUB' },
        items: v1Items.map(({ unitPrice: _price, ...item }) => ({ ...item, unitPrice: expect.any(Object) })),
      });
      expect(order).not.toHaveProperty('totalAmount');
      expect(order.items.map((i) => i.unitPrice)).toEqual([
        { amount: '1999.90', currency: 'RUB' },
        { amount: '250.05', currency: 'RUB' },
      ]);
      expect((await alice('GET', successorOf(empty.orderId))).json<OrderV2>().total).toEqual({
        amount: '0.00',
        currency: 'RUB',
      });
      expect((await alice('GET', successorOf(spoons.orderId))).json<OrderV2>().total.amount).toBe('1.50');
    });

    it('has the ETag of v1 and answers If-None-Match with 304 until the order changes', async () => {
      const v1 = await alice('GET', `/api/v1/orders/${empty.orderId}`);
      const v2 = await alice('GET', successorOf(empty.orderId));
      expect(v2.headers.etag).toBe(v1.headers.etag);
      expect(v2.headers['cache-control']).toBe('private, no-cache');
      const etag = String(v2.headers.etag);

      const notModified = await alice('GET', successorOf(empty.orderId), {
        headers: { 'if-none-match': etag },
      });
      expect(notModified.statusCode).toBe(304);
      expect(notModified.body).toBe('');
      expect(notModified.headers.etag).toBe(etag);

      // A v2 tag is a valid precondition of a v1 write: both name the order's version.
      const patched = await alice('PATCH', `/api/v1/orders/${empty.orderId}`, {
        body: { note: 'changed' },
        contentType: MERGE_PATCH,
        headers: { 'if-match': etag },
      });
      expect(patched.statusCode).toBe(200);
      const changed = await alice('GET', successorOf(empty.orderId), { headers: { 'if-none-match': etag } });
      expect(changed.statusCode).toBe(200);
      expect(changed.headers.etag).not.toBe(etag);
      expect(changed.json<OrderV2>().note).toBe('changed');
    });

    it('GET /api/v2/orders lists the same orders as v1 for the same filters, paging and sort', async () => {
      const queries = [
        '',
        '?status=CREATED&sort=totalAmount,asc&size=2&page=1',
        '?amountFrom=1&amountTo=10000&q=ring',
        '?sort=createdAt,asc&size=1&page=3',
      ];
      for (const query of queries) {
        const v1 = await alice('GET', `/api/v1/orders${query}`);
        const v2 = await alice('GET', `/api/v2/orders${query}`);
        expect({ query, status: v2.statusCode }).toEqual({ query, status: 200 });
        const { content: v1Orders, ...v1Page } = v1.json<Page<Order>>();
        const { content: v2Orders, ...v2Page } = v2.json<Page<OrderV2>>();
        expect(v2Page).toEqual(v1Page);
        expect(v2Orders.map((o) => o.orderId)).toEqual(v1Orders.map((o) => o.orderId));
        expect(v2Orders.map((o) => o.total.amount)).toEqual(v1Orders.map((o) => o.totalAmount.toFixed(2)));
      }
    });

    it('pages with cursors as v1 does', async () => {
      const first = (await alice('GET', '/api/v2/orders?cursor=&size=2')).json<Page<OrderV2>>();
      expect(first).toMatchObject({ size: 2, hasNext: true, hasPrev: false, nextCursor: expect.any(String) });
      const next = await alice(
        'GET',
        `/api/v2/orders?cursor=${encodeURIComponent(String(first.nextCursor))}&size=2`,
      );
      expect(next.statusCode).toBe(200);
      const ids = [...first.content, ...next.json<Page<OrderV2>>().content].map((o) => o.orderId);
      expect(ids).toEqual([spoons.orderId, empty.orderId, full.orderId]);
    });

    it('validates the query as v1 does', async () => {
      const res = await alice('GET', '/api/v2/orders?sort=price,asc&page=0', { lang: 'en' });
      expectProblem(res, 400, 'VALIDATION_ERROR');
      const v1 = await alice('GET', '/api/v1/orders?sort=price,asc&page=0', { lang: 'en' });
      expect(res.json().violations).toEqual(v1.json().violations);
    });

    it('keeps ownership: 403 for another customer, 404 for an unknown order, in ru and en', async () => {
      expectProblem(await bob('GET', successorOf(full.orderId), { lang: 'en' }), 403, 'ACCESS_DENIED');
      const unknown = randomUUID();
      const en = expectProblem(
        await bob('GET', successorOf(unknown), { lang: 'en' }),
        404,
        'ORDER_NOT_FOUND',
      );
      const ru = expectProblem(
        await bob('GET', successorOf(unknown), { lang: 'ru' }),
        404,
        'ORDER_NOT_FOUND',
      );
      expect(en.detail).toBe(`Order ${unknown} does not exist.`);
      expect(ru.detail).toBe(`Заказ ${unknown} не существует.`);
      expect((await admin('GET', successorOf(full.orderId))).statusCode).toBe(200);
    });

    it('documents v2 with v2 schemas, v1 keeps its own', async () => {
      const document = await servedDocument(t);
      const getOrderV2 = document.paths['/api/v2/orders/{orderId}']?.get;
      expect(getOrderV2).toMatchObject({ operationId: 'getOrderV2', tags: ['Orders'] });
      expect(JSON.stringify(getOrderV2?.responses['200'])).toContain('#/components/schemas/OrderV2Response');
      expect(document.paths['/api/v2/orders']?.get?.operationId).toBe('getOrdersV2');
      const schemas = document.components?.schemas ?? {};
      expect(schemas.OrderV2Response).toHaveProperty('properties.total.allOf', [
        { $ref: '#/components/schemas/MoneyV2' },
      ]);
      expect(schemas.OrderV2Response).not.toHaveProperty('properties.totalAmount');
      expect(schemas.MoneyV2).toMatchObject({ required: ['amount', 'currency'] });
      expect(schemas.OrderResponse).toHaveProperty('properties.totalAmount');
      expect(JSON.stringify(document.paths['/api/v1/orders/{orderId}']?.get?.responses['200'])).toContain(
        '#/components/schemas/OrderResponse',
      );
    });
  });

  describe('paths outside /api/v<N>/ do not exist', () => {
    it.each(['/api/v1/me', '/v1/orders', '/orders', '/api/v1.2/orders', '/api/orders', '/api/v3/orders'])(
      '%s is 404 RESOURCE_NOT_FOUND as Problem Details',
      async (url) => {
        expectProblemEnvelope(await alice('GET', url), 404, 'RESOURCE_NOT_FOUND');
      },
    );
  });

  describe('the deprecated GET /api/v1/orders/{orderId}/status while it lives', () => {
    it('answers {status} with Deprecation, Sunset (HTTP-date) and the successor Link of this order', async () => {
      const res = await alice('GET', statusOf(full.orderId));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'CREATED' });
      expectDeprecationHeaders(res, full.orderId);
    });

    it('keeps the ownership rules, with the deprecation headers on every answer', async () => {
      const foreign = await bob('GET', statusOf(full.orderId), { lang: 'en' });
      expectProblem(foreign, 403, 'ACCESS_DENIED');
      expectDeprecationHeaders(foreign, full.orderId);

      const unknown = randomUUID();
      const missing = await alice('GET', statusOf(unknown), { lang: 'en' });
      expect(expectProblem(missing, 404, 'ORDER_NOT_FOUND').detail).toBe(`Order ${unknown} does not exist.`);
      expectDeprecationHeaders(missing, unknown);

      const malformed = await alice('GET', statusOf('not-a-uuid'));
      expectProblem(malformed, 400, 'VALIDATION_ERROR');
      expectDeprecationHeaders(malformed, 'not-a-uuid');

      const anonymous = await apiClient(t)('GET', statusOf(full.orderId));
      expectProblem(anonymous, 401, 'UNAUTHORIZED');
      expectDeprecationHeaders(anonymous, full.orderId);

      expect((await admin('GET', statusOf(full.orderId))).json()).toEqual({ status: 'CREATED' });
    });

    it('is documented as deprecated, naming the successor and the removal date', async () => {
      const operation = (await servedDocument(t)).paths[LEGACY_STATUS_PATH]?.get;
      expect(operation).toMatchObject({
        operationId: 'getOrderStatusLegacy',
        deprecated: true,
        tags: ['Orders'],
        description: expect.stringContaining('/api/v2/orders/{orderId}'),
      });
      expect(operation?.description).toContain('2027-08-31');
      expect(Object.keys((operation?.responses['200'] as ResponseObject | undefined)?.headers ?? {})).toEqual(
        expect.arrayContaining(['Deprecation', 'Sunset', 'Link']),
      );
    });

    it('no other endpoint carries deprecation headers', async () => {
      const res = await alice('GET', successorOf(full.orderId));
      expect([res.headers.deprecation, res.headers.sunset, res.headers.link]).toEqual([
        undefined,
        undefined,
        undefined,
      ]);
    });
  });

  describe('the sunset passing while the application runs', () => {
    let clock: jest.SpyInstance<Date, []>;
    afterEach(() => clock?.mockRestore());

    it('turns the endpoint into 410 ENDPOINT_REMOVED and drops it from the served document, no restart', async () => {
      expect((await servedDocument(t)).paths[LEGACY_STATUS_PATH]).toBeDefined();
      expect((await alice('GET', statusOf(full.orderId))).statusCode).toBe(200);

      clock = jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(new Date(LEGACY_SUNSET));

      const en = await alice('GET', statusOf(full.orderId), { lang: 'en' });
      const ru = await alice('GET', statusOf(full.orderId), { lang: 'ru' });
      expectProblemEnvelope(en, 410, 'ENDPOINT_REMOVED', { title: 'Gone' });
      expect(en.json().detail).toBe(`This endpoint was removed; use ${successorOf(full.orderId)} instead.`);
      expect(ru.json().detail).toBe(`Этот метод API удалён; используйте ${successorOf(full.orderId)}.`);
      expect(en.json().code).toBe(ru.json().code);
      expect(en.headers.link).toBe(`<${successorOf(full.orderId)}>; rel="successor-version"`);
      expect(en.headers.deprecation).toBeUndefined();

      const document = await servedDocument(t);
      expect(document.paths[LEGACY_STATUS_PATH]).toBeUndefined();
      expect(document.paths['/api/v2/orders/{orderId}']).toBeDefined();

      // The successor goes on serving.
      expect((await alice('GET', successorOf(full.orderId))).statusCode).toBe(200);
    });
  });

  describe('an instance started after the sunset', () => {
    let late: TestApp;
    beforeAll(async () => {
      late = await bootTestApp({ LEGACY_STATUS_SUNSET: '2020-01-01T00:00:00Z' });
    });
    afterAll(() => late.close());

    it('answers 410 to everyone, before authentication, and leaves the operation out of its document', async () => {
      const customer = await customerClient(late, String(full.customerId));
      const removed = await customer('GET', statusOf(full.orderId), { lang: 'en' });
      expectProblemEnvelope(removed, 410, 'ENDPOINT_REMOVED');
      expect(removed.json().detail).toContain(successorOf(full.orderId));
      expectProblem(await apiClient(late)('GET', statusOf(full.orderId)), 410, 'ENDPOINT_REMOVED');

      const document = await servedDocument(late);
      expect(document.paths[LEGACY_STATUS_PATH]).toBeUndefined();
      expect(JSON.stringify(document)).not.toContain('getOrderStatusLegacy');
      expect((await customer('GET', successorOf(full.orderId))).statusCode).toBe(200);
    });
  });
});
