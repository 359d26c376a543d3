import { randomUUID } from 'node:crypto';
import { adminClient, customerClient } from './support/callers';
import { ApiClient, MERGE_PATCH } from './support/http-client';
import { createOrder, DeliveryAddress, postOrder } from './support/orders';
import { expectProblem, fieldsAndCodes, violatedFields, violationsOf } from './support/problem';
import { createProduct, stockOf } from './support/products';
import { bootTestApp, TestApp } from './support/test-app';

describe('orders, items and the order state machine', () => {
  let t: TestApp;
  let admin: ApiClient;
  let alice: ApiClient;
  let bob: ApiClient;
  let aliceId: string;

  const address: DeliveryAddress = { streetName: 'Tverskaya 1', zipCode: '125009' };

  beforeAll(async () => {
    t = await bootTestApp();
    aliceId = randomUUID();
    admin = await adminClient(t);
    alice = await customerClient(t, aliceId);
    bob = await customerClient(t);
  });
  afterAll(() => t.close());

  describe('products', () => {
    it('an admin adds products; anyone reads them with Cache-Control private, max-age=60', async () => {
      const { productId } = await createProduct(admin, { name: 'Kettle', price: 1999.9, stock: 5 });
      const res = await alice('GET', `/api/v1/products/${productId}`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('private, max-age=60');
      expect(res.json()).toEqual({
        productId,
        name: 'Kettle',
        price: 1999.9,
        stock: 5,
        status: 'ACTIVE',
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
      });
      const list = await alice('GET', '/api/v1/products?page=1&size=2');
      expect(list.statusCode).toBe(200);
      expect(list.headers['cache-control']).toBe('private, max-age=60');
      expect(list.json()).toMatchObject({
        page: 1,
        size: 2,
        totalElements: expect.any(Number),
        totalPages: expect.any(Number),
      });
    });

    it('an unknown product is 404 PRODUCT_NOT_FOUND as problem+json in ru and en', async () => {
      const id = randomUUID();
      const ru = await alice('GET', `/api/v1/products/${id}`, { lang: 'ru' });
      const en = await alice('GET', `/api/v1/products/${id}`, { lang: 'en' });
      for (const res of [ru, en]) expectProblem(res, 404, 'PRODUCT_NOT_FOUND', { title: 'Not Found' });
      expect(en.json().detail).toBe(`Product ${id} does not exist.`);
      expect(ru.json().detail).toBe(`Товар ${id} не существует.`);
    });

    it('a customer may not add products (403) and invalid fields are all reported', async () => {
      expect(
        (await alice('POST', '/api/v1/products', { body: { name: 'X', price: 1, stock: 1 } })).json().code,
      ).toBe('ACCESS_DENIED');
      const res = await admin('POST', '/api/v1/products', {
        body: { name: '', price: 1.234, stock: -1, status: 'GONE' },
      });
      expect(res.statusCode).toBe(400);
      expect(violatedFields(res)).toEqual(['name', 'price', 'status', 'stock']);
    });

    it('PATCH takes only a merge patch and rejects removing a required field', async () => {
      const { productId } = await createProduct(admin, { name: 'Pan', price: 10, stock: 1 });
      const json = await admin('PATCH', `/api/v1/products/${productId}`, { body: { stock: 3 } });
      expect(json.statusCode).toBe(415);
      expect(json.json().code).toBe('UNSUPPORTED_MEDIA_TYPE');
      const ok = await admin('PATCH', `/api/v1/products/${productId}`, {
        body: { stock: 3, status: 'DISCONTINUED' },
        contentType: MERGE_PATCH,
      });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toMatchObject({
        stock: 3,
        status: 'DISCONTINUED',
        name: 'Pan',
        updatedAt: expect.any(String),
      });
      const removeName = await admin('PATCH', `/api/v1/products/${productId}`, {
        body: { name: null },
        contentType: MERGE_PATCH,
      });
      expect(removeName.statusCode).toBe(400);
      expect(removeName.json().violations).toEqual([
        expect.objectContaining({ field: 'name', code: 'REQUIRED' }),
      ]);
    });
  });

  describe('create and read', () => {
    let kettle: string;
    let mug: string;

    beforeAll(async () => {
      kettle = (await createProduct(admin, { name: 'Kettle', price: 1999.9, stock: 10 })).productId;
      mug = (await createProduct(admin, { name: 'Mug', price: 250.05, stock: 10 })).productId;
    });

    it('creates an order: 201, Location, ETag, frozen prices and the total', async () => {
      const res = await postOrder(alice, {
        items: [
          { productId: kettle, quantity: 1 },
          { productId: mug, quantity: 2 },
        ],
        deliveryAddress: address,
        note: 'ring twice',
      });
      expect(res.statusCode).toBe(201);
      const order = res.json();
      expect(res.headers.location).toBe(`/api/v1/orders/${order.orderId}`);
      expect(res.headers.etag).toMatch(/^"/);
      expect(order).toMatchObject({
        customerId: aliceId,
        status: 'CREATED',
        totalAmount: 2500,
        currency: 'RUB',
        deliveryAddress: address,
        note: 'ring twice',
        items: [
          {
            productId: kettle,
            productName: 'Kettle',
            quantity: 1,
            unitPrice: 1999.9,
            itemId: expect.any(String),
          },
          { productId: mug, productName: 'Mug', quantity: 2, unitPrice: 250.05, itemId: expect.any(String) },
        ],
      });
      expect(order).not.toHaveProperty('updatedAt');
      expect(order).not.toHaveProperty('confirmedAt');

      const read = await alice('GET', `/api/v1/orders/${order.orderId}`);
      expect(read.statusCode).toBe(200);
      expect(read.json()).toEqual(order);
      expect(read.headers.etag).toBe(res.headers.etag);
      expect(read.headers['cache-control']).toBe('private, no-cache');
    });

    it('answers If-None-Match with the current ETag by 304 and no body', async () => {
      const created = await postOrder(alice, { items: [] });
      const url = `/api/v1/orders/${created.json().orderId}`;
      const res = await alice('GET', url, { headers: { 'if-none-match': String(created.headers.etag) } });
      expect(res.statusCode).toBe(304);
      expect(res.body).toBe('');
      expect((await alice('GET', url, { headers: { 'if-none-match': '"stale"' } })).statusCode).toBe(200);
    });

    it('an empty order has items [] and no total beyond 0', async () => {
      const res = await postOrder(alice, {});
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ items: [], totalAmount: 0 });
    });

    it('requires an Idempotency-Key that is a uuid', async () => {
      for (const headers of [{}, { 'idempotency-key': 'not-a-uuid' }] as Array<Record<string, string>>) {
        const res = await alice('POST', '/api/v1/orders', { body: {}, headers });
        expect(res.statusCode).toBe(400);
        expect(res.json().code).toBe('VALIDATION_ERROR');
        expect(res.json().violations).toEqual([expect.objectContaining({ field: 'Idempotency-Key' })]);
      }
    });

    it('reports every bad line with its own code, in ru and en', async () => {
      const discontinued = (
        await createProduct(admin, { name: 'Old', price: 1, stock: 5, status: 'DISCONTINUED' })
      ).productId;
      const empty = (await createProduct(admin, { name: 'Empty', price: 1, stock: 0 })).productId;
      const scarce = (await createProduct(admin, { name: 'Scarce', price: 1, stock: 2 })).productId;
      const body = {
        items: [
          { productId: randomUUID(), quantity: 1 },
          { productId: discontinued, quantity: 1 },
          { productId: empty, quantity: 1 },
          { productId: scarce, quantity: 3 },
        ],
      };
      const ru = await postOrder(alice, body, { lang: 'ru' });
      const en = await postOrder(alice, body, { lang: 'en' });
      const expected = [
        { field: 'items[0].productId', code: 'PRODUCT_NOT_FOUND' },
        { field: 'items[1].productId', code: 'PRODUCT_DISCONTINUED' },
        { field: 'items[2].productId', code: 'PRODUCT_OUT_OF_STOCK' },
        { field: 'items[3].quantity', code: 'INSUFFICIENT_STOCK' },
      ];
      for (const res of [ru, en]) {
        expect(res.statusCode).toBe(400);
        expect(res.json().code).toBe('VALIDATION_ERROR');
        expect(fieldsAndCodes(violationsOf(res))).toEqual(expected);
      }
      expect(en.json().violations[3].message).toBe('Only 2 in stock.');
      expect(ru.json().violations[3].message).toBe('На складе только 2.');
    });

    it('validates structure: quantity, uuid, address parts and unknown fields at once', async () => {
      const res = await postOrder(
        alice,
        {
          items: [{ productId: 'x', quantity: 0 }],
          deliveryAddress: { streetName: 'A' },
          colour: 'red',
        },
        { lang: 'en' },
      );
      expect(res.statusCode).toBe(400);
      const fields = violatedFields(res);
      expect(fields).toEqual([
        'colour',
        'deliveryAddress.zipCode',
        'items[0].productId',
        'items[0].quantity',
      ]);
    });

    it('a customer may not order for someone else; an admin may', async () => {
      const other = randomUUID();
      expect((await postOrder(alice, { customerId: other })).statusCode).toBe(403);
      const res = await postOrder(admin, { customerId: other, items: [{ productId: mug, quantity: 1 }] });
      expect(res.statusCode).toBe(201);
      expect(res.json().customerId).toBe(other);
    });

    it("another customer's order is 403 ACCESS_DENIED, an unknown one 404, a malformed id 400", async () => {
      const created = await createOrder(alice);
      const foreign = await bob('GET', `/api/v1/orders/${created.orderId}`, { lang: 'en' });
      expect(foreign.statusCode).toBe(403);
      expect(foreign.json().code).toBe('ACCESS_DENIED');
      expect((await admin('GET', `/api/v1/orders/${created.orderId}`)).statusCode).toBe(200);
      const unknown = randomUUID();
      const missing = await alice('GET', `/api/v1/orders/${unknown}`, { lang: 'en' });
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toMatchObject({
        code: 'ORDER_NOT_FOUND',
        detail: `Order ${unknown} does not exist.`,
      });
      const malformed = await alice('GET', '/api/v1/orders/not-a-uuid');
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json().violations).toEqual([
        expect.objectContaining({ field: 'orderId', code: 'INVALID_FORMAT' }),
      ]);
    });

    it('lists only the caller’s orders (all for an admin), newest first, paged', async () => {
      const carol = await customerClient(t);
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) ids.push((await createOrder(carol, { note: `n${i}` })).orderId);
      const page1 = await carol('GET', '/api/v1/orders?size=2');
      expect(page1.statusCode).toBe(200);
      expect(page1.json()).toMatchObject({ page: 1, size: 2, totalElements: 3, totalPages: 2 });
      expect(page1.json().content.map((o: { orderId: string }) => o.orderId)).toEqual([ids[2], ids[1]]);
      const page2 = await carol('GET', '/api/v1/orders?size=2&page=2');
      expect(page2.json().content.map((o: { orderId: string }) => o.orderId)).toEqual([ids[0]]);
      const all = await admin('GET', '/api/v1/orders?size=100');
      expect(all.json().totalElements).toBeGreaterThan(3);
      const bad = await carol('GET', '/api/v1/orders?page=0&size=101');
      expect(bad.statusCode).toBe(400);
      expect(violatedFields(bad)).toEqual(['page', 'size']);
    });

    it('GET /orders/latest is the caller’s most recent order; 404 when there is none', async () => {
      const dave = await customerClient(t);
      const none = await dave('GET', '/api/v1/orders/latest');
      expect(none.statusCode).toBe(404);
      expect(none.json().code).toBe('ORDER_NOT_FOUND');
      await createOrder(dave, { note: 'first' });
      const second = await createOrder(dave, { note: 'second' });
      const latest = await dave('GET', '/api/v1/orders/latest');
      expect(latest.statusCode).toBe(200);
      expect(latest.json().orderId).toBe(second.orderId);
    });
  });

  describe('changes', () => {
    let lamp: string;
    beforeAll(async () => {
      lamp = (await createProduct(admin, { name: 'Lamp', price: 100, stock: 50 })).productId;
    });

    it('PUT replaces items, address and note; absent fields are removed; ETag changes', async () => {
      const created = await postOrder(alice, {
        items: [{ productId: lamp, quantity: 1 }],
        note: 'old',
        deliveryAddress: address,
      });
      const url = `/api/v1/orders/${created.json().orderId}`;
      const res = await alice('PUT', url, { body: { items: [{ productId: lamp, quantity: 3 }] } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        totalAmount: 300,
        items: [{ quantity: 3 }],
        updatedAt: expect.any(String),
      });
      expect(res.json()).not.toHaveProperty('note');
      expect(res.json()).not.toHaveProperty('deliveryAddress');
      expect(res.headers.etag).not.toBe(created.headers.etag);
    });

    it('If-Match with a stale ETag is 409 CONCURRENT_MODIFICATION; the current one passes', async () => {
      const created = await postOrder(alice, {});
      const url = `/api/v1/orders/${created.json().orderId}`;
      const stale = String(created.headers.etag);
      const first = await alice('PUT', url, { body: { note: 'a' }, headers: { 'if-match': stale } });
      expect(first.statusCode).toBe(200);
      const second = await alice('PUT', url, {
        body: { note: 'b' },
        headers: { 'if-match': stale },
        lang: 'en',
      });
      expect(second.statusCode).toBe(409);
      expect(second.json().code).toBe('CONCURRENT_MODIFICATION');
      const patch = await alice('PATCH', url, {
        body: { note: 'c' },
        contentType: MERGE_PATCH,
        headers: { 'if-match': String(first.headers.etag) },
      });
      expect(patch.statusCode).toBe(200);
    });

    it('PATCH is a merge patch: null removes, read-only fields are named, JSON is 415', async () => {
      const created = await createOrder(alice, { note: 'keep me', deliveryAddress: address });
      const url = `/api/v1/orders/${created.orderId}`;
      const merge = { contentType: MERGE_PATCH };
      const res = await alice('PATCH', url, {
        ...merge,
        body: { note: null, deliveryAddress: { zipCode: '101000' } },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).not.toHaveProperty('note');
      expect(res.json().deliveryAddress).toEqual({ streetName: address.streetName, zipCode: '101000' });
      const readOnly = await alice('PATCH', url, {
        ...merge,
        body: { status: 'SHIPPED', items: [] },
        lang: 'en',
      });
      expect(readOnly.statusCode).toBe(400);
      expect(
        readOnly
          .json()
          .violations.map((v: { field: string; code: string }) => [v.field, v.code])
          .sort(),
      ).toEqual([
        ['items', 'READ_ONLY'],
        ['status', 'READ_ONLY'],
      ]);
      const json = await alice('PATCH', url, { body: { note: 'x' } });
      expect(json.statusCode).toBe(415);
      expect(json.json().code).toBe('UNSUPPORTED_MEDIA_TYPE');
    });

    it('DELETE is 204 in CREATED, then the order is gone; 409 once confirmed', async () => {
      const created = await createOrder(alice);
      const del = await alice('DELETE', `/api/v1/orders/${created.orderId}`);
      expect(del.statusCode).toBe(204);
      expect(del.body).toBe('');
      expect((await alice('GET', `/api/v1/orders/${created.orderId}`)).statusCode).toBe(404);

      const confirmed = await createOrder(alice, { items: [{ productId: lamp, quantity: 1 }] });
      await alice('POST', `/api/v1/orders/${confirmed.orderId}/confirm`);
      const refused = await alice('DELETE', `/api/v1/orders/${confirmed.orderId}`, { lang: 'en' });
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({ code: 'INVALID_ORDER_STATE' });
      expect(refused.json().detail).toContain('CONFIRMED');
    });

    it('items: add (201, Location), read, list, remove; totals follow; 409 after confirm', async () => {
      const order = await createOrder(alice);
      const base = `/api/v1/orders/${order.orderId}/items`;
      const added = await alice('POST', base, { body: { productId: lamp, quantity: 2 } });
      expect(added.statusCode).toBe(201);
      const item = added.json();
      expect(added.headers.location).toBe(`${base}/${item.itemId}`);
      expect(item).toMatchObject({ productId: lamp, productName: 'Lamp', quantity: 2, unitPrice: 100 });
      expect((await alice('GET', `${base}/${item.itemId}`)).json()).toEqual(item);
      const list = await alice('GET', base);
      expect(list.json()).toMatchObject({
        content: [item],
        page: 1,
        size: 20,
        totalElements: 1,
        totalPages: 1,
      });
      expect((await alice('GET', `/api/v1/orders/${order.orderId}`)).json().totalAmount).toBe(200);

      const missing = await alice('GET', `${base}/${randomUUID()}`, { lang: 'en' });
      expect(missing.statusCode).toBe(404);
      expect(missing.json().code).toBe('ITEM_NOT_FOUND');

      expect((await alice('DELETE', `${base}/${item.itemId}`)).statusCode).toBe(204);
      expect((await alice('GET', `/api/v1/orders/${order.orderId}`)).json()).toMatchObject({
        totalAmount: 0,
        items: [],
      });

      await alice('POST', base, { body: { productId: lamp, quantity: 1 } });
      await alice('POST', `/api/v1/orders/${order.orderId}/confirm`);
      const late = await alice('POST', base, { body: { productId: lamp, quantity: 1 }, lang: 'ru' });
      expect(late.statusCode).toBe(409);
      expect(late.json().code).toBe('INVALID_ORDER_STATE');
    });
  });

  describe('actions', () => {
    it('walks CREATED → CONFIRMED → SHIPPED → DELIVERED → REFUNDED with stock reserved at confirm', async () => {
      const { productId } = await createProduct(admin, { name: 'Chair', price: 500, stock: 10 });
      const order = await createOrder(alice, {
        items: [{ productId, quantity: 3 }],
        deliveryAddress: address,
      });
      const url = `/api/v1/orders/${order.orderId}`;
      expect(await stockOf(admin, productId)).toBe(10);

      const confirmed = await alice('POST', `${url}/confirm`);
      expect(confirmed.statusCode).toBe(200);
      expect(confirmed.json()).toMatchObject({ status: 'CONFIRMED', confirmedAt: expect.any(String) });
      expect(await stockOf(admin, productId)).toBe(7);

      const shipped = await admin('POST', `${url}/ship`, {
        body: { trackingNumber: 'TRK-1', carrier: 'CDEK' },
      });
      expect(shipped.statusCode).toBe(200);
      expect(shipped.json()).toMatchObject({
        status: 'SHIPPED',
        trackingNumber: 'TRK-1',
        carrier: 'CDEK',
        shippedAt: expect.any(String),
      });
      expect(await stockOf(admin, productId)).toBe(7);

      const delivered = await admin('POST', `${url}/deliver`);
      expect(delivered.json()).toMatchObject({ status: 'DELIVERED', deliveredAt: expect.any(String) });
      expect(await stockOf(admin, productId)).toBe(7);

      const refunded = await admin('POST', `${url}/refund`, { body: { reason: 'broken' } });
      expect(refunded.statusCode).toBe(200);
      expect(refunded.json()).toMatchObject({
        status: 'REFUNDED',
        refundedAt: expect.any(String),
        refundReason: 'broken',
      });
      expect(await stockOf(admin, productId)).toBe(7);

      const again = await admin('POST', `${url}/refund`, { lang: 'en' });
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({
        code: 'INVALID_ORDER_STATE',
        detail: 'The order is REFUNDED; this operation is not allowed in that status.',
      });
    });

    it('walks CREATED → CONFIRMED → CANCELLED and releases the reserved stock; CREATED → CANCELLED leaves it', async () => {
      const { productId } = await createProduct(admin, { name: 'Desk', price: 900, stock: 4 });
      const a = await createOrder(alice, { items: [{ productId, quantity: 3 }] });
      await alice('POST', `/api/v1/orders/${a.orderId}/confirm`);
      expect(await stockOf(admin, productId)).toBe(1);
      const cancelled = await alice('POST', `/api/v1/orders/${a.orderId}/cancel`, {
        body: { reason: 'changed my mind' },
      });
      expect(cancelled.statusCode).toBe(200);
      expect(cancelled.json()).toMatchObject({
        status: 'CANCELLED',
        cancellationReason: 'changed my mind',
        cancelledAt: expect.any(String),
      });
      expect(await stockOf(admin, productId)).toBe(4);

      const b = await createOrder(alice, { items: [{ productId, quantity: 2 }] });
      expect(
        (await alice('POST', `/api/v1/orders/${b.orderId}/cancel`, { body: { reason: 'no' } })).json().status,
      ).toBe('CANCELLED');
      expect(await stockOf(admin, productId)).toBe(4);
    });

    it('confirm without items is 409 ORDER_EMPTY; ship without address 409 DELIVERY_ADDRESS_MISSING', async () => {
      const empty = await createOrder(alice);
      const res = await alice('POST', `/api/v1/orders/${empty.orderId}/confirm`, { lang: 'en' });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({
        code: 'ORDER_EMPTY',
        detail: 'The order has no items and cannot be confirmed.',
      });

      const { productId } = await createProduct(admin, { name: 'Sofa', price: 1, stock: 1 });
      const noAddress = await createOrder(alice, { items: [{ productId, quantity: 1 }] });
      await alice('POST', `/api/v1/orders/${noAddress.orderId}/confirm`);
      const ship = await admin('POST', `/api/v1/orders/${noAddress.orderId}/ship`, {
        body: { trackingNumber: 'T', carrier: 'C' },
        lang: 'ru',
      });
      expect(ship.statusCode).toBe(409);
      expect(ship.json().code).toBe('DELIVERY_ADDRESS_MISSING');
    });

    it('ship, deliver and refund are admin actions; cancel needs a reason', async () => {
      const { productId } = await createProduct(admin, { name: 'Bed', price: 1, stock: 5 });
      const order = await createOrder(alice, {
        items: [{ productId, quantity: 1 }],
        deliveryAddress: address,
      });
      await alice('POST', `/api/v1/orders/${order.orderId}/confirm`);
      const bodies: Record<string, object | undefined> = {
        ship: { trackingNumber: 'T', carrier: 'C' },
        deliver: undefined,
        refund: { reason: 'R' },
      };
      for (const [action, body] of Object.entries(bodies)) {
        // Each with a body its action takes: the refusal is for the caller, not the request.
        const res = await alice('POST', `/api/v1/orders/${order.orderId}/${action}`, { body });
        expect(res.statusCode).toBe(403);
        expect(res.json().code).toBe('ACCESS_DENIED');
      }
      const noReason = await alice('POST', `/api/v1/orders/${order.orderId}/cancel`, {
        body: {},
        lang: 'en',
      });
      expect(noReason.statusCode).toBe(400);
      expect(noReason.json().violations).toEqual([
        expect.objectContaining({ field: 'reason', code: 'REQUIRED' }),
      ]);
      const foreign = await bob('POST', `/api/v1/orders/${order.orderId}/cancel`, { body: { reason: 'x' } });
      expect(foreign.statusCode).toBe(403);
    });

    it('50 concurrent confirms competing for 10 units: exactly 10 confirmed, stock 0', async () => {
      const { productId } = await createProduct(admin, { name: 'Last units', price: 10, stock: 10 });
      const orders: string[] = [];
      for (let i = 0; i < 50; i += 1) {
        orders.push((await createOrder(admin, { items: [{ productId, quantity: 1 }] })).orderId);
      }
      const results = await Promise.all(orders.map((id) => admin('POST', `/api/v1/orders/${id}/confirm`)));
      const confirmed = results.filter((r) => r.statusCode === 200);
      const refused = results.filter((r) => r.statusCode === 409);
      expect(confirmed).toHaveLength(10);
      expect(refused).toHaveLength(40);
      for (const r of refused) expect(r.json().code).toBe('INSUFFICIENT_STOCK');
      expect(await stockOf(admin, productId)).toBe(0);
    });
  });

  describe('users', () => {
    it('creates the profile just in time; PUT /users/me replaces editable fields', async () => {
      const erinId = randomUUID();
      const erin = await customerClient(t, erinId);
      const me = await erin('GET', '/api/v1/users/me');
      expect(me.statusCode).toBe(200);
      expect(me.json()).toEqual({ userId: erinId, roles: ['CUSTOMER'], createdAt: expect.any(String) });
      const put = await erin('PUT', '/api/v1/users/me', {
        body: { displayName: 'Erin', regionId: 77, segment: 'VIP' },
      });
      expect(put.statusCode).toBe(200);
      expect(put.json()).toMatchObject({
        displayName: 'Erin',
        regionId: 77,
        segment: 'VIP',
        updatedAt: expect.any(String),
      });
      const readOnly = await erin('PUT', '/api/v1/users/me', { body: { roles: ['ADMIN'] }, lang: 'en' });
      expect(readOnly.statusCode).toBe(400);
      expect(readOnly.json().violations).toEqual([
        expect.objectContaining({ field: 'roles', code: 'READ_ONLY' }),
      ]);
    });

    it('GET /users/{userId}: the caller themself or an admin; else 403; unknown 404', async () => {
      await alice('GET', '/api/v1/users/me');
      expect((await alice('GET', `/api/v1/users/${aliceId}`)).statusCode).toBe(200);
      expect((await admin('GET', `/api/v1/users/${aliceId}`)).statusCode).toBe(200);
      const foreign = await bob('GET', `/api/v1/users/${aliceId}`, { lang: 'en' });
      expect(foreign.statusCode).toBe(403);
      expect(foreign.json().code).toBe('ACCESS_DENIED');
      const unknown = await admin('GET', `/api/v1/users/${randomUUID()}`);
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().code).toBe('USER_NOT_FOUND');
    });

    it('/api/v1/me does not exist', async () => {
      expect((await alice('GET', '/api/v1/me')).statusCode).toBe(404);
    });
  });
});
