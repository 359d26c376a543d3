import { randomUUID } from 'node:crypto';
import type { OpenAPIObject } from '@nestjs/swagger';
import { LightMyRequestResponse } from 'fastify';
import { adminClient, customerClient } from './support/callers';
import { ApiClient, apiClient, MERGE_PATCH, withIdempotencyKey } from './support/http-client';
import { createOrder } from './support/orders';
import { expectProblem, fieldsAndCodes, violationsOf } from './support/problem';
import { createProduct, stockOf } from './support/products';
import { bootTestApp, TestApp } from './support/test-app';

interface BatchResult {
  index: number;
  status: 'SUCCESS' | 'ERROR';
  orderId?: string;
  itemId?: string;
  error?: { code: string; detail: string };
}

describe('order batches', () => {
  let t: TestApp;
  let admin: ApiClient;
  let alice: ApiClient;
  let aliceId: string;
  let bob: ApiClient;

  async function orderCount(client: ApiClient): Promise<number> {
    return (await client('GET', '/api/v1/orders?size=1')).json().totalElements as number;
  }

  const codesOf = (res: LightMyRequestResponse) =>
    (res.json().results as BatchResult[]).map((r) => r.error?.code ?? r.status);

  beforeAll(async () => {
    t = await bootTestApp();
    aliceId = randomUUID();
    admin = await adminClient(t);
    alice = await customerClient(t, aliceId);
    bob = await customerClient(t);
  });
  afterAll(() => t.close());

  describe('POST /orders/batch (partial success)', () => {
    let kettle: string;
    let mug: string;
    let discontinued: string;
    let soldOut: string;

    beforeAll(async () => {
      kettle = (await createProduct(admin, { name: 'Kettle', price: 1999.9, stock: 1000 })).productId;
      mug = (await createProduct(admin, { name: 'Mug', price: 250.05, stock: 1000 })).productId;
      discontinued = (await createProduct(admin, { name: 'Old', price: 1, stock: 5, status: 'DISCONTINUED' }))
        .productId;
      soldOut = (await createProduct(admin, { name: 'Gone', price: 1, stock: 0 })).productId;
    });

    it('creates one single-line order per good item and reports each bad one: 200, exact index and summary', async () => {
      const unknown = randomUUID();
      const res = await alice('POST', '/api/v1/orders/batch', {
        body: {
          items: [
            { productId: kettle, quantity: 2 },
            { productId: unknown, quantity: 1 },
            { productId: discontinued, quantity: 1 },
            { productId: mug, quantity: 3 },
            { productId: soldOut, quantity: 1 },
            { productId: mug, quantity: 5000 },
          ],
        },
        lang: 'en',
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['content-language']).toBe('en');
      expect(res.headers.location).toBeUndefined();
      const body = res.json();
      expect(body).toEqual({
        results: [
          { index: 0, status: 'SUCCESS', orderId: expect.any(String) },
          {
            index: 1,
            status: 'ERROR',
            error: { code: 'PRODUCT_NOT_FOUND', detail: `Product ${unknown} does not exist.` },
          },
          {
            index: 2,
            status: 'ERROR',
            error: { code: 'PRODUCT_DISCONTINUED', detail: 'The product is discontinued.' },
          },
          { index: 3, status: 'SUCCESS', orderId: expect.any(String) },
          {
            index: 4,
            status: 'ERROR',
            error: { code: 'PRODUCT_OUT_OF_STOCK', detail: 'The product is out of stock.' },
          },
          {
            index: 5,
            status: 'ERROR',
            error: { code: 'INSUFFICIENT_STOCK', detail: 'Not enough stock for the order.' },
          },
        ],
        summary: { total: 6, succeeded: 2, failed: 4 },
      });

      const first = await alice('GET', `/api/v1/orders/${body.results[0].orderId}`);
      expect(first.statusCode).toBe(200);
      expect(first.json()).toMatchObject({
        customerId: aliceId,
        status: 'CREATED',
        totalAmount: 3999.8,
        items: [{ productId: kettle, productName: 'Kettle', quantity: 2, unitPrice: 1999.9 }],
      });
      expect(first.json().items).toHaveLength(1);
      const second = await alice('GET', `/api/v1/orders/${body.results[3].orderId}`);
      expect(second.json()).toMatchObject({ totalAmount: 750.15, items: [{ productId: mug, quantity: 3 }] });
    });

    it('lists and finds the created orders like any other, in item order', async () => {
      const samovar = (await createProduct(admin, { name: 'Brass Samovar', price: 30, stock: 10 })).productId;
      const client = await customerClient(t);
      const res = await client('POST', '/api/v1/orders/batch', {
        body: {
          items: [
            { productId: samovar, quantity: 1 },
            { productId: mug, quantity: 1 },
            { productId: samovar, quantity: 2 },
          ],
        },
      });
      const [first, , third] = (res.json().results as BatchResult[]).map((r) => r.orderId);
      const found = await client('GET', '/api/v1/orders?q=samovar&sort=createdAt,asc');
      expect(found.json().content.map((o: { orderId: string }) => o.orderId)).toEqual([first, third]);
      const latest = await client('GET', '/api/v1/orders/latest');
      expect(latest.json().orderId).toBe(res.json().results[2].orderId);
    });

    it('localizes item details by Accept-Language (ru by default); codes stay the same', async () => {
      const unknown = randomUUID();
      const body = { items: [{ productId: unknown, quantity: 1 }] };
      const ru = await alice('POST', '/api/v1/orders/batch', { body, lang: 'ru' });
      const en = await alice('POST', '/api/v1/orders/batch', { body, lang: 'en' });
      const byDefault = await alice('POST', '/api/v1/orders/batch', { body });
      expect(ru.json().results[0].error).toEqual({
        code: 'PRODUCT_NOT_FOUND',
        detail: `Товар ${unknown} не существует.`,
      });
      expect(en.json().results[0].error).toEqual({
        code: 'PRODUCT_NOT_FOUND',
        detail: `Product ${unknown} does not exist.`,
      });
      expect(byDefault.json().results[0].error).toEqual(ru.json().results[0].error);
      expect(ru.headers['content-language']).toBe('ru');
      expect(en.headers['content-language']).toBe('en');
    });

    it('answers 200 even when every item fails, and creates nothing', async () => {
      const client = await customerClient(t);
      const res = await client('POST', '/api/v1/orders/batch', {
        body: {
          items: [
            { productId: randomUUID(), quantity: 1 },
            { productId: soldOut, quantity: 1 },
          ],
        },
      });
      expect(res.statusCode).toBe(200);
      expect(codesOf(res)).toEqual(['PRODUCT_NOT_FOUND', 'PRODUCT_OUT_OF_STOCK']);
      expect(res.json().summary).toEqual({ total: 2, succeeded: 0, failed: 2 });
      expect(await orderCount(client)).toBe(0);
    });

    it('checks each item against the whole stock, as separate creates would be', async () => {
      const scarce = (await createProduct(admin, { name: 'Scarce', price: 10, stock: 5 })).productId;
      const res = await alice('POST', '/api/v1/orders/batch', {
        body: {
          items: [
            { productId: scarce, quantity: 3 },
            { productId: scarce, quantity: 6 },
            { productId: scarce, quantity: 5 },
          ],
        },
      });
      expect(codesOf(res)).toEqual(['SUCCESS', 'INSUFFICIENT_STOCK', 'SUCCESS']);
    });

    it('refuses an item whose total the money column cannot hold; the others are still created', async () => {
      // unitPrice × quantity beyond numeric(12,2): a validation failure of that item (MAX), never a 500.
      // (Items the database refuses anyway fail alone too: src/platform/batch/batch-savepoints.spec.ts.)
      const dear = (await createProduct(admin, { name: 'Dear', price: 100_000, stock: 1_000_000 })).productId;
      const client = await customerClient(t);
      const res = await client('POST', '/api/v1/orders/batch', {
        body: {
          items: [
            { productId: mug, quantity: 1 },
            { productId: dear, quantity: 1_000_000 },
            { productId: kettle, quantity: 1 },
          ],
        },
        lang: 'en',
      });
      expect(res.statusCode).toBe(200);
      expect(codesOf(res)).toEqual(['SUCCESS', 'VALIDATION_ERROR', 'SUCCESS']);
      expect(res.json().results[1].error.detail).toBe(
        'items[1].quantity: The value must be at most 9999999999.99.',
      );
      expect(res.json().summary).toEqual({ total: 3, succeeded: 2, failed: 1 });
      expect(await orderCount(client)).toBe(2);
    });

    it('takes 100 items; 101 are refused whole with 400 BATCH_SIZE_EXCEEDED in ru and en', async () => {
      const client = await customerClient(t);
      const item = { productId: mug, quantity: 1 };
      const hundred = await client('POST', '/api/v1/orders/batch', {
        body: { items: Array.from({ length: 100 }, () => item) },
      });
      expect(hundred.statusCode).toBe(200);
      expect(hundred.json().summary).toEqual({ total: 100, succeeded: 100, failed: 0 });
      expect((hundred.json().results as BatchResult[]).map((r) => r.index)).toEqual(
        Array.from({ length: 100 }, (_, i) => i),
      );
      expect(await orderCount(client)).toBe(100);

      const body = { items: Array.from({ length: 101 }, () => item) };
      const en = await client('POST', '/api/v1/orders/batch', { body, lang: 'en' });
      const ru = await client('POST', '/api/v1/orders/batch', { body, lang: 'ru' });
      for (const res of [en, ru]) {
        const problem = expectProblem(res, 400, 'BATCH_SIZE_EXCEEDED', { status: 400, title: 'Bad Request' });
        expect(problem).not.toHaveProperty('violations');
      }
      expect(en.json().detail).toBe('A batch may hold at most 100 items; this one has 101.');
      expect(ru.json().detail).toBe('В пакете может быть не более 100 элементов; в этом 101.');
      expect(await orderCount(client)).toBe(100);
    });

    it('checks the size before the items: 101 malformed items are BATCH_SIZE_EXCEEDED', async () => {
      const res = await alice('POST', '/api/v1/orders/batch', {
        body: { items: Array.from({ length: 101 }, () => ({ productId: 'nope', quantity: 0 })) },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('BATCH_SIZE_EXCEEDED');
    });

    it('refuses the whole request with VALIDATION_ERROR for a malformed item, naming items[i].field', async () => {
      const client = await customerClient(t);
      const res = await client('POST', '/api/v1/orders/batch', {
        body: {
          items: [
            { productId: mug, quantity: 1 },
            { productId: 'not-a-uuid', quantity: 1 },
            { productId: mug, quantity: 0 },
            { productId: mug, quantity: 1, colour: 'red' },
            'mug',
          ],
        },
        lang: 'en',
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('VALIDATION_ERROR');
      expect(fieldsAndCodes(violationsOf(res))).toEqual([
        { field: 'items[1].productId', code: 'INVALID_FORMAT' },
        { field: 'items[2].quantity', code: 'MIN' },
        { field: 'items[3].colour', code: 'UNKNOWN_FIELD' },
        { field: 'items[4]', code: 'INVALID_TYPE' },
      ]);
      expect(await orderCount(client)).toBe(0);
    });

    it.each([
      ['no items', { items: [] }, 'items', 'MIN_ITEMS'],
      ['no items field', {}, 'items', 'REQUIRED'],
      ['items not a list', { items: { productId: randomUUID(), quantity: 1 } }, 'items', 'INVALID_TYPE'],
    ])('refuses %s with VALIDATION_ERROR', async (_name, body, field, code) => {
      const res = await alice('POST', '/api/v1/orders/batch', { body });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', violations: [{ field, code }] });
    });

    it('needs a bearer token', async () => {
      const res = await apiClient(t)('POST', '/api/v1/orders/batch', {
        body: { items: [{ productId: mug, quantity: 1 }] },
      });
      expect(res.statusCode).toBe(401);
    });
  });

  describe('POST /orders/batch/confirm (partial success)', () => {
    let lamp: string;

    beforeAll(async () => {
      lamp = (await createProduct(admin, { name: 'Lamp', price: 40, stock: 100 })).productId;
    });

    it('confirms each order on its own; every failure carries its code', async () => {
      const confirmable = await createOrder(alice, { items: [{ productId: lamp, quantity: 2 }] });
      const empty = await createOrder(alice, { items: [] });
      const bobs = await createOrder(bob, { items: [{ productId: lamp, quantity: 1 }] });
      const confirmed = await createOrder(alice, { items: [{ productId: lamp, quantity: 1 }] });
      expect((await alice('POST', `/api/v1/orders/${confirmed.orderId}/confirm`)).statusCode).toBe(200);
      const scarce = (await createProduct(admin, { name: 'Scarce lamp', price: 40, stock: 3 })).productId;
      const short = await createOrder(alice, { items: [{ productId: scarce, quantity: 3 }] });
      const patched = await admin('PATCH', `/api/v1/products/${scarce}`, {
        body: { stock: 1 },
        contentType: MERGE_PATCH,
      });
      expect(patched.statusCode).toBe(200);
      const unknown = randomUUID();
      const stockBefore = await stockOf(admin, lamp);

      const res = await alice('POST', '/api/v1/orders/batch/confirm', {
        body: {
          items: [
            { orderId: confirmable.orderId },
            { orderId: empty.orderId },
            { orderId: bobs.orderId },
            { orderId: confirmed.orderId },
            { orderId: unknown },
            { orderId: short.orderId },
          ],
        },
        lang: 'en',
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        results: [
          { index: 0, status: 'SUCCESS', orderId: confirmable.orderId },
          {
            index: 1,
            status: 'ERROR',
            error: { code: 'ORDER_EMPTY', detail: 'The order has no items and cannot be confirmed.' },
          },
          {
            index: 2,
            status: 'ERROR',
            error: { code: 'ACCESS_DENIED', detail: 'You are not allowed to perform this operation.' },
          },
          {
            index: 3,
            status: 'ERROR',
            error: {
              code: 'INVALID_ORDER_STATE',
              detail: 'The order is CONFIRMED; this operation is not allowed in that status.',
            },
          },
          {
            index: 4,
            status: 'ERROR',
            error: { code: 'ORDER_NOT_FOUND', detail: `Order ${unknown} does not exist.` },
          },
          {
            index: 5,
            status: 'ERROR',
            error: { code: 'INSUFFICIENT_STOCK', detail: 'Not enough stock for the order.' },
          },
        ],
        summary: { total: 6, succeeded: 1, failed: 5 },
      });

      const after = await alice('GET', `/api/v1/orders/${confirmable.orderId}`);
      expect(after.json()).toMatchObject({ status: 'CONFIRMED', confirmedAt: expect.any(String) });
      expect(await stockOf(admin, lamp)).toBe(stockBefore - 2);
      expect((await bob('GET', `/api/v1/orders/${bobs.orderId}`)).json().status).toBe('CREATED');
      expect((await alice('GET', `/api/v1/orders/${short.orderId}`)).json().status).toBe('CREATED');
    });

    it('localizes item details in ru', async () => {
      const empty = await createOrder(alice, { items: [] });
      const res = await alice('POST', '/api/v1/orders/batch/confirm', {
        body: { items: [{ orderId: empty.orderId }] },
        lang: 'ru',
      });
      expect(res.json().results[0].error).toEqual({
        code: 'ORDER_EMPTY',
        detail: 'В заказе нет позиций, его нельзя подтвердить.',
      });
    });

    it('an order named twice is confirmed once; the repeat is INVALID_ORDER_STATE', async () => {
      const order = await createOrder(alice, { items: [{ productId: lamp, quantity: 1 }] });
      const res = await alice('POST', '/api/v1/orders/batch/confirm', {
        body: { items: [{ orderId: order.orderId }, { orderId: order.orderId }] },
      });
      expect(codesOf(res)).toEqual(['SUCCESS', 'INVALID_ORDER_STATE']);
      expect(res.json().summary).toEqual({ total: 2, succeeded: 1, failed: 1 });
    });

    it('an admin confirms any customer’s orders', async () => {
      const order = await createOrder(bob, { items: [{ productId: lamp, quantity: 1 }] });
      const res = await admin('POST', '/api/v1/orders/batch/confirm', {
        body: { items: [{ orderId: order.orderId }] },
      });
      expect(codesOf(res)).toEqual(['SUCCESS']);
    });

    it('refuses a malformed order id and 101 items for the whole request', async () => {
      const malformed = await alice('POST', '/api/v1/orders/batch/confirm', {
        body: { items: [{ orderId: 'x' }, {}] },
      });
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json()).toMatchObject({
        code: 'VALIDATION_ERROR',
        violations: [
          { field: 'items[0].orderId', code: 'INVALID_FORMAT' },
          { field: 'items[1].orderId', code: 'REQUIRED' },
        ],
      });
      const tooMany = await alice('POST', '/api/v1/orders/batch/confirm', {
        body: { items: Array.from({ length: 101 }, () => ({ orderId: randomUUID() })) },
      });
      expect(tooMany.statusCode).toBe(400);
      expect(tooMany.json().code).toBe('BATCH_SIZE_EXCEEDED');
    });
  });

  describe('POST /orders/{orderId}/items/batch (atomic)', () => {
    let pen: string;
    let ink: string;
    let limited: string;

    beforeAll(async () => {
      pen = (await createProduct(admin, { name: 'Pen', price: 12.5, stock: 1000 })).productId;
      ink = (await createProduct(admin, { name: 'Ink', price: 3.2, stock: 1000 })).productId;
      limited = (await createProduct(admin, { name: 'Limited', price: 100, stock: 5 })).productId;
    });

    it('adds every line in one go: 200, an itemId per result, the new ETag', async () => {
      const order = await createOrder(alice, { items: [{ productId: pen, quantity: 1 }] });
      const res = await alice('POST', `/api/v1/orders/${order.orderId}/items/batch`, {
        body: {
          items: [
            { productId: ink, quantity: 2 },
            { productId: pen, quantity: 3 },
          ],
        },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        results: [
          { index: 0, status: 'SUCCESS', itemId: expect.any(String) },
          { index: 1, status: 'SUCCESS', itemId: expect.any(String) },
        ],
        summary: { total: 2, succeeded: 2, failed: 0 },
      });
      const read = await alice('GET', `/api/v1/orders/${order.orderId}`);
      expect(read.headers.etag).toBe(res.headers.etag);
      const [, first, second] = read.json().items;
      expect(read.json()).toMatchObject({ totalAmount: 12.5 + 6.4 + 37.5, updatedAt: expect.any(String) });
      expect(first).toMatchObject({ itemId: res.json().results[0].itemId, productId: ink, quantity: 2 });
      expect(second).toMatchObject({ itemId: res.json().results[1].itemId, productId: pen, quantity: 3 });
    });

    it('adds nothing when any line fails: 400 BATCH_TRANSACTION_FAILED with failedItems, in en and ru', async () => {
      const order = await createOrder(alice, { items: [{ productId: pen, quantity: 1 }] });
      const before = await alice('GET', `/api/v1/orders/${order.orderId}`);
      const unknown = randomUUID();
      const body = {
        items: [
          { productId: ink, quantity: 1 },
          { productId: unknown, quantity: 1 },
          { productId: pen, quantity: 2 },
          { productId: limited, quantity: 6 },
        ],
      };
      const url = `/api/v1/orders/${order.orderId}/items/batch`;
      const en = await alice('POST', url, { body, lang: 'en' });
      const ru = await alice('POST', url, { body, lang: 'ru' });
      for (const res of [en, ru]) expectProblem(res, 400, 'BATCH_TRANSACTION_FAILED', { status: 400 });
      expect(en.json().detail).toBe('The atomic batch failed and nothing was changed; see failedItems.');
      expect(en.json().failedItems).toEqual([
        { index: 1, code: 'PRODUCT_NOT_FOUND', detail: `Product ${unknown} does not exist.` },
        { index: 3, code: 'INSUFFICIENT_STOCK', detail: 'Not enough stock for the order.' },
      ]);
      expect(ru.json().failedItems).toEqual([
        { index: 1, code: 'PRODUCT_NOT_FOUND', detail: `Товар ${unknown} не существует.` },
        { index: 3, code: 'INSUFFICIENT_STOCK', detail: 'Недостаточно товара на складе для заказа.' },
      ]);

      const after = await alice('GET', `/api/v1/orders/${order.orderId}`);
      expect(after.json()).toEqual(before.json());
      expect(after.headers.etag).toBe(before.headers.etag);
    });

    it('checks stock for what the order will hold, its current lines included', async () => {
      const order = await createOrder(alice, { items: [{ productId: limited, quantity: 3 }] });
      const url = `/api/v1/orders/${order.orderId}/items/batch`;
      const over = await alice('POST', url, { body: { items: [{ productId: limited, quantity: 3 }] } });
      expect(over.statusCode).toBe(400);
      expect(over.json().failedItems).toEqual([
        expect.objectContaining({ index: 0, code: 'INSUFFICIENT_STOCK' }),
      ]);
      const split = await alice('POST', url, {
        body: {
          items: [
            { productId: limited, quantity: 1 },
            { productId: limited, quantity: 2 },
          ],
        },
      });
      expect(split.statusCode).toBe(400);
      expect(split.json().failedItems).toEqual([
        expect.objectContaining({ index: 1, code: 'INSUFFICIENT_STOCK' }),
      ]);
      const fits = await alice('POST', url, { body: { items: [{ productId: limited, quantity: 2 }] } });
      expect(fits.statusCode).toBe(200);
    });

    it('answers for the order as a single add does: 404, 403, 409 not CREATED, 409 on a stale If-Match', async () => {
      const items = [{ productId: pen, quantity: 1 }];
      const unknown = await alice('POST', `/api/v1/orders/${randomUUID()}/items/batch`, { body: { items } });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().code).toBe('ORDER_NOT_FOUND');

      const bobs = await createOrder(bob, { items: [] });
      const foreign = await alice('POST', `/api/v1/orders/${bobs.orderId}/items/batch`, { body: { items } });
      expect(foreign.statusCode).toBe(403);
      expect(foreign.json().code).toBe('ACCESS_DENIED');

      const order = await createOrder(alice, { items: [{ productId: pen, quantity: 1 }] });
      const stale = await alice('POST', `/api/v1/orders/${order.orderId}/items/batch`, {
        body: { items },
        headers: { 'if-match': '"stale"' },
      });
      expect(stale.statusCode).toBe(409);
      expect(stale.json().code).toBe('CONCURRENT_MODIFICATION');

      expect((await alice('POST', `/api/v1/orders/${order.orderId}/confirm`)).statusCode).toBe(200);
      const confirmed = await alice('POST', `/api/v1/orders/${order.orderId}/items/batch`, {
        body: { items },
      });
      expect(confirmed.statusCode).toBe(409);
      expect(confirmed.json().code).toBe('INVALID_ORDER_STATE');
    });

    it('applies the batch limits: 101 items, no items, a malformed item', async () => {
      const order = await createOrder(alice, { items: [] });
      const url = `/api/v1/orders/${order.orderId}/items/batch`;
      const tooMany = await alice('POST', url, {
        body: { items: Array.from({ length: 101 }, () => ({ productId: pen, quantity: 1 })) },
      });
      expect(tooMany.json().code).toBe('BATCH_SIZE_EXCEEDED');
      const none = await alice('POST', url, { body: { items: [] } });
      expect(none.json()).toMatchObject({ code: 'VALIDATION_ERROR', violations: [{ field: 'items' }] });
      const malformed = await alice('POST', url, { body: { items: [{ productId: pen }] } });
      expect(malformed.json()).toMatchObject({
        code: 'VALIDATION_ERROR',
        violations: [{ field: 'items[0].quantity', code: 'REQUIRED' }],
      });
      expect((await alice('GET', `/api/v1/orders/${order.orderId}`)).json().items).toEqual([]);
    });
  });

  describe('Idempotency-Key', () => {
    it('replays a whole batch response and creates nothing again; another body is 409', async () => {
      const mug = (await createProduct(admin, { name: 'Replay mug', price: 5, stock: 100 })).productId;
      const client = await customerClient(t);
      const key = withIdempotencyKey();
      const body = {
        items: [
          { productId: mug, quantity: 1 },
          { productId: randomUUID(), quantity: 1 },
        ],
      };
      const first = await client('POST', '/api/v1/orders/batch', { body, headers: key, lang: 'en' });
      const replay = await client('POST', '/api/v1/orders/batch', { body, headers: key, lang: 'en' });
      expect(first.statusCode).toBe(200);
      expect(replay.statusCode).toBe(200);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toBe(first.body);
      expect(replay.headers['content-language']).toBe('en');
      expect(await orderCount(client)).toBe(1);

      const other = await client('POST', '/api/v1/orders/batch', {
        body: { items: [{ productId: mug, quantity: 2 }] },
        headers: key,
      });
      expect(other.statusCode).toBe(409);
      expect(other.json().code).toBe('IDEMPOTENCY_KEY_REUSED');
      expect(await orderCount(client)).toBe(1);
    });

    it('replays a failed atomic batch as the same 400', async () => {
      const order = await createOrder(alice, { items: [] });
      const key = withIdempotencyKey();
      const body = { items: [{ productId: randomUUID(), quantity: 1 }] };
      const url = `/api/v1/orders/${order.orderId}/items/batch`;
      const first = await alice('POST', url, { body, headers: key });
      const replay = await alice('POST', url, { body, headers: key });
      expect(first.statusCode).toBe(400);
      expect(replay.statusCode).toBe(400);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.json()).toEqual(first.json());
    });
  });

  describe('OpenAPI', () => {
    it('declares the three batch operations; the atomic one says so', async () => {
      const document = (
        await t.app.inject({ method: 'GET', url: '/docs/openapi.json' })
      ).json() as OpenAPIObject;
      const create = document.paths['/api/v1/orders/batch']?.post;
      const confirm = document.paths['/api/v1/orders/batch/confirm']?.post;
      const addItems = document.paths['/api/v1/orders/{orderId}/items/batch']?.post;
      expect(create?.operationId).toBe('batchCreateOrders');
      expect(confirm?.operationId).toBe('batchConfirmOrders');
      expect(addItems?.operationId).toBe('batchAddOrderItems');
      for (const op of [create, confirm, addItems]) {
        expect(op?.tags).toEqual(['Orders']);
        expect(Object.keys(op?.responses ?? {})).toContain('200');
        expect(Object.keys(op?.responses ?? {})).not.toContain('201');
        expect(op?.parameters).toEqual(
          expect.arrayContaining([expect.objectContaining({ name: 'Idempotency-Key' })]),
        );
      }
      expect(addItems?.description).toMatch(/^Atomic: /);
      expect(create?.description).toMatch(/^Partial success/);
      const schemas = document.components?.schemas ?? {};
      expect(schemas.CreateOrdersBatchRequest).toMatchObject({
        properties: { items: { type: 'array', minItems: 1, maxItems: 100 } },
      });
      expect(schemas.BatchItemStatus).toMatchObject({ type: 'string', enum: ['SUCCESS', 'ERROR'] });
      expect(schemas.OrderBatchResult).toMatchObject({
        required: ['index', 'status'],
        properties: { index: { type: 'integer' }, orderId: { type: 'string', format: 'uuid' } },
      });
      expect(JSON.stringify(schemas.OrderBatchResult)).toContain('"#/components/schemas/BatchItemStatus"');
      expect(JSON.stringify(schemas.BatchItemError)).toContain('"#/components/schemas/ErrorCode"');
    });
  });
});
