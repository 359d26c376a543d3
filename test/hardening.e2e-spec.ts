import { API_SECURITY_HEADERS } from '../src/platform/http/security-headers';
import * as net from 'node:net';
import { DataSource } from 'typeorm';
import { Sql } from '../src/platform/database/sql';
import { read } from '../src/platform/database/sql-statement';
import { adminClient, customerClient } from './support/callers';
import { ApiClient, apiClient, MERGE_PATCH, withIdempotencyKey } from './support/http-client';
import { createOrder, ORDERS } from './support/orders';
import { expectProblem, PROBLEM_JSON, violationsOf } from './support/problem';
import { HARDENING_PROBE_PATH, HardeningProbeModule } from './support/probes/hardening.probe';
import { createProduct } from './support/products';
import { bootTestApp, TestApp } from './support/test-app';
import { bearer } from './support/tokens';

/** Each defect a hardening review found, as a client meets it: 4xx/503 Problem Details, never 500. */
describe('hardening: hostile and careless input', () => {
  let t: TestApp;
  let admin: ApiClient;
  let alice: ApiClient;
  let aliceAuth: string;
  let mug: string;

  beforeAll(async () => {
    t = await bootTestApp({}, [HardeningProbeModule]);
    admin = await adminClient(t);
    aliceAuth = await bearer(t.config);
    alice = apiClient(t, aliceAuth);
    mug = (await createProduct(admin, { name: 'Mug', price: 250.05, stock: 1_000_000 })).productId;
  });
  afterAll(() => t.close());

  describe('1. bodies nested deeper than 32 levels', () => {
    it.each([
      ['arrays', (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`],
      ['objects', (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`],
    ])('10,000 levels of %s are 400 MAX_DEPTH, never 500', async (_kind, nest) => {
      const res = await t.app.inject({
        method: 'POST',
        url: ORDERS,
        payload: `{"items":${nest(10_000)}}`,
        headers: {
          'content-type': 'application/json',
          authorization: aliceAuth,
          ...withIdempotencyKey(),
        },
      });
      expectProblem(res, 400, 'VALIDATION_ERROR');
      expect(violationsOf(res)).toEqual([{ field: '', code: 'MAX_DEPTH', message: expect.any(String) }]);
    });

    it('32 levels are read (and validated as usual); 33 are refused', async () => {
      const nested = (n: number) =>
        `{"note":"x","deliveryAddress":${'{"x":'.repeat(n - 1)}1${'}'.repeat(n - 1)}}`;
      const ok = await inject('POST', ORDERS, nested(32));
      expect(violationsOf(ok).map((v) => v.code)).not.toContain('MAX_DEPTH');
      const deep = await inject('POST', ORDERS, nested(33));
      expect(violationsOf(deep).map((v) => v.code)).toEqual(['MAX_DEPTH']);
    });
  });

  describe('3. an order total beyond numeric(12,2)', () => {
    let dear: string;
    beforeAll(async () => {
      dear = (await createProduct(admin, { name: 'Dear', price: 9_999_999_999.99, stock: 10 })).productId;
    });

    it('is 400 VALIDATION_ERROR MAX on items for create, add item and replace', async () => {
      const create = await alice('POST', ORDERS, {
        body: { items: [{ productId: dear, quantity: 2 }] },
        headers: withIdempotencyKey(),
        lang: 'en',
      });
      expectProblem(create, 400, 'VALIDATION_ERROR');
      expect(violationsOf(create)).toEqual([
        { field: 'items', code: 'MAX', message: 'The value must be at most 9999999999.99.' },
      ]);
      const order = await createOrder(alice, { items: [{ productId: dear, quantity: 1 }] });
      const add = await alice('POST', `${ORDERS}/${order.orderId}/items`, {
        body: { productId: dear, quantity: 1 },
      });
      expectProblem(add, 400, 'VALIDATION_ERROR');
      expect(violationsOf(add)).toEqual([expect.objectContaining({ field: 'items', code: 'MAX' })]);
      const replace = await alice('PUT', `${ORDERS}/${order.orderId}`, {
        body: {
          items: [
            { productId: dear, quantity: 1 },
            { productId: dear, quantity: 1 },
          ],
        },
      });
      expectProblem(replace, 400, 'VALIDATION_ERROR');
      expect(violationsOf(replace)).toEqual([expect.objectContaining({ field: 'items', code: 'MAX' })]);
      // Nothing changed.
      expect((await alice('GET', `${ORDERS}/${order.orderId}`)).json().items).toHaveLength(1);
    });
  });

  describe('4 and 5. every problem of a request at once, and no key bound by a refused request', () => {
    it('a bad body without Idempotency-Key reports the header and the body together', async () => {
      const res = await alice('POST', ORDERS, { body: { items: [{ productId: 'nope', quantity: 0 }] } });
      expectProblem(res, 400, 'VALIDATION_ERROR');
      expect(violationsOf(res).map((v) => `${v.field}:${v.code}`)).toEqual([
        'Idempotency-Key:REQUIRED',
        'items[0].productId:INVALID_FORMAT',
        'items[0].quantity:MIN',
      ]);
    });

    it('path, query and body problems come in one answer', async () => {
      const res = await alice('PATCH', `${ORDERS}/not-a-uuid`, {
        body: { note: 7, extra: true },
        contentType: MERGE_PATCH,
      });
      expectProblem(res, 400, 'VALIDATION_ERROR');
      expect(violationsOf(res).map((v) => `${v.field}:${v.code}`)).toEqual([
        'orderId:INVALID_FORMAT',
        'extra:UNKNOWN_FIELD',
        'note:INVALID_TYPE',
      ]);
    });

    it('quantity 0 with a key, then the corrected body with the same key: 400, then 201', async () => {
      const headers = withIdempotencyKey();
      const bad = await alice('POST', ORDERS, {
        body: { items: [{ productId: mug, quantity: 0 }] },
        headers,
      });
      expectProblem(bad, 400, 'VALIDATION_ERROR');
      const good = await alice('POST', ORDERS, {
        body: { items: [{ productId: mug, quantity: 1 }] },
        headers,
      });
      expect(good.statusCode).toBe(201);
    });
  });

  describe('6. numbers and bodies', () => {
    it.each(['amountTo=', 'page=0x2', 'size=1e1', 'amountFrom=%2010', 'page=2.5'])(
      'GET /orders?%s is 400 INVALID_TYPE, not read as a number',
      async (query) => {
        const res = await alice('GET', `${ORDERS}?${query}`);
        expectProblem(res, 400, 'VALIDATION_ERROR');
        expect(violationsOf(res).map((v) => v.code)).toEqual(['INVALID_TYPE']);
      },
    );

    it('a price with 3 decimals is INVALID_FORMAT naming the 2-decimal rule', async () => {
      const res = await admin('POST', '/api/v1/products', {
        body: { name: 'X', price: 1.005, stock: 1 },
        lang: 'en',
      });
      expectProblem(res, 400, 'VALIDATION_ERROR');
      expect(violationsOf(res)).toEqual([
        {
          field: 'price',
          code: 'INVALID_FORMAT',
          message: 'The value does not have the expected format (0.00).',
        },
      ]);
    });

    it('POST /orders needs a body: none is REQUIRED; {} is an empty order', async () => {
      const none = await t.app.inject({
        method: 'POST',
        url: ORDERS,
        headers: { authorization: aliceAuth, ...withIdempotencyKey() },
      });
      expectProblem(none, 400, 'VALIDATION_ERROR');
      expect(violationsOf(none).map((v) => `${v.field}:${v.code}`)).toEqual([':REQUIRED']);
      expect((await alice('POST', ORDERS, { body: {}, headers: withIdempotencyKey() })).statusCode).toBe(201);
    });

    it('an action without parameters refuses a body with fields (UNKNOWN_FIELD); {} and none are fine', async () => {
      const order = await createOrder(alice, { items: [{ productId: mug, quantity: 1 }] });
      const withFields = await alice('POST', `${ORDERS}/${order.orderId}/confirm`, { body: { force: true } });
      expectProblem(withFields, 400, 'VALIDATION_ERROR');
      expect(violationsOf(withFields).map((v) => `${v.field}:${v.code}`)).toEqual(['force:UNKNOWN_FIELD']);
      expect((await alice('POST', `${ORDERS}/${order.orderId}/confirm`, { body: {} })).statusCode).toBe(200);
    });
  });

  describe('2. answers of the HTTP parser and the URI limit, over a real socket', () => {
    let port: number;
    beforeAll(async () => {
      await t.app.listen(0, '127.0.0.1');
      port = (t.app.getHttpServer().address() as net.AddressInfo).port;
    });

    /** Sends raw bytes, resolves with the status line, the headers and the body of the answer. */
    function raw(request: string): Promise<{ status: number; headers: string; body: string }> {
      return new Promise((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () => socket.end(request));
        let data = '';
        socket.on('data', (chunk: Buffer) => (data += chunk.toString('utf8')));
        socket.on('error', reject);
        socket.on('close', () => {
          const [head, ...rest] = data.split('\r\n\r\n');
          resolve({ status: Number(head.split(' ')[1]), headers: head, body: rest.join('\r\n\r\n') });
        });
      });
    }

    it.each([
      [
        'a 100 KB query string',
        `GET /api/v1/orders?q=${'x'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
        431,
        'HEADERS_TOO_LARGE',
      ],
      ['a request that is not HTTP', 'HELLO THERE\r\n\r\n', 400, 'BAD_REQUEST'],
      [
        'a 10 KB URI',
        `GET /api/v1/orders?q=${'x'.repeat(10_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        414,
        'URI_TOO_LONG',
      ],
    ])(
      '%s is Problem Details with a registered code and the security headers',
      async (_case, request, status, code) => {
        const res = await raw(request);
        expect(res.status).toBe(status);
        expect(res.headers).toMatch(new RegExp(`content-type: ${PROBLEM_JSON.source.slice(1, -6)}`, 'i'));
        for (const [name, value] of Object.entries(API_SECURITY_HEADERS)) {
          expect(res.headers.toLowerCase()).toContain(`${name}: ${value}`.toLowerCase());
        }
        expect(JSON.parse(res.body)).toMatchObject({
          status,
          code,
          type: expect.stringMatching(/^urn:problem:/),
        });
      },
    );
  });

  describe('10. statements that would run forever, and a database that is gone', () => {
    let quick: TestApp;
    beforeAll(async () => {
      // Past any pooler: its own limit is asked for at connect (behind a pooler the role's defaults hold).
      quick = await bootTestApp(
        { DATABASE_URL: process.env.E2E_DIRECT_DATABASE_URL, DB_STATEMENT_TIMEOUT_MS: '300' },
        [HardeningProbeModule],
      );
    });
    afterAll(() => quick.close());

    it('every session carries the statement and idle-in-transaction timeouts of the settings', async () => {
      const limits = [{ statement_timeout: '15s', idle_in_transaction_session_timeout: '15s' }];
      const show = `SELECT current_setting('statement_timeout') AS statement_timeout,
        current_setting('idle_in_transaction_session_timeout') AS idle_in_transaction_session_timeout`;
      expect(await t.app.get(Sql).rows(read(show))).toEqual(limits);
      expect(await t.app.get(DataSource).transaction((db) => db.query(show))).toEqual(limits);
    });

    it('a statement past the timeout is cancelled: 503 SERVICE_UNAVAILABLE with Retry-After, not 500', async () => {
      const client = await customerClient(quick);
      const res = await client('GET', `${HARDENING_PROBE_PATH}/sleep?ms=2000`, { lang: 'en' });
      expectProblem(res, 503, 'SERVICE_UNAVAILABLE');
      expect(res.headers['retry-after']).toBe('5');
    });

    it('a refused connection is 503 SERVICE_UNAVAILABLE too', async () => {
      const res = await alice('GET', `${HARDENING_PROBE_PATH}/unreachable`);
      expectProblem(res, 503, 'SERVICE_UNAVAILABLE');
    });
  });

  describe('9. small truths', () => {
    it('/docs/ with a trailing slash leads to /docs', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/docs/' });
      expect(res.statusCode).toBe(301);
      expect(res.headers.location).toBe('/docs');
    });

    it('a 415 names the media type the route accepts', async () => {
      const order = await createOrder(alice, {});
      const res = await alice('PATCH', `${ORDERS}/${order.orderId}`, { body: { note: 'x' }, lang: 'en' });
      expectProblem(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
      expect(res.json().detail).toBe(
        'This content type is not supported here; send application/merge-patch+json.',
      );
    });
  });

  async function inject(method: 'POST', url: string, payload: string) {
    return t.app.inject({
      method,
      url,
      payload,
      headers: {
        'content-type': 'application/json',
        authorization: aliceAuth,
        ...withIdempotencyKey(),
      },
    });
  }
});
