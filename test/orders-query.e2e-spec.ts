import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { adminClient, customerClient } from './support/callers';
import { ApiClient } from './support/http-client';
import { createOrder, postOrder } from './support/orders';
import { createProduct } from './support/products';
import { bootTestApp, TestApp } from './support/test-app';
type OrderBody = { orderId: string; status: string; totalAmount: number; createdAt: string; note?: string };

describe('querying orders: filters, sorting, offset and cursor paging, search', () => {
  let t: TestApp;
  let db: DataSource;
  let admin: ApiClient;
  let owner: ApiClient;
  let ownerId: string;
  let other: ApiClient;
  const ids: string[] = [];

  const ids$ = (res: { json(): { content: OrderBody[] } }) => res.json().content.map((o) => o.orderId);

  beforeAll(async () => {
    t = await bootTestApp();
    db = t.app.get(DataSource);
    ownerId = randomUUID();
    admin = await adminClient(t);
    owner = await customerClient(t, ownerId);
    other = await customerClient(t);
    const product = await createProduct(admin, { name: 'Blue Teapot', price: 100, stock: 1000 });
    const plain = await createProduct(admin, { name: 'Spoon', price: 10, stock: 1000 });

    // Ten orders of one customer on known days with known totals: day i has total (i+1)*10.
    for (let i = 0; i < 10; i += 1) {
      const order = await createOrder(owner, {
        items: [{ productId: i === 3 ? product.productId : plain.productId, quantity: i + 1 }],
        note: i === 5 ? 'Please CALL before delivery' : `order ${i}`,
      });
      ids.push(order.orderId);
    }
    for (let i = 0; i < 10; i += 1) {
      await db.query(`UPDATE orders SET created_at = $2 WHERE order_id = $1`, [
        ids[i],
        `2026-03-${String(i + 1).padStart(2, '0')}T12:00:00Z`,
      ]);
    }
    await db.query(`UPDATE orders SET status = 'CANCELLED' WHERE order_id = ANY($1)`, [[ids[0], ids[1]]]);
    await db.query(`UPDATE orders SET tracking_number = 'TRK-XYZ-42' WHERE order_id = $1`, [ids[7]]);
    await owner('PUT', '/api/v1/users/me', { body: { regionId: 42, segment: 'VIP' } });
    await createOrder(other, { note: 'not yours' });
  });
  afterAll(() => t.close());

  it('defaults: offset page 1 of 20, newest first, only the caller’s orders', async () => {
    const res = await owner('GET', '/api/v1/orders');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ page: 1, size: 20, totalElements: 10, totalPages: 1 });
    expect(ids$(res)).toEqual([...ids].reverse());
  });

  it('status is repeatable; a comma-separated value is a 400', async () => {
    const one = await owner('GET', '/api/v1/orders?status=CANCELLED');
    expect(ids$(one).sort()).toEqual([ids[0], ids[1]].sort());
    const two = await owner('GET', '/api/v1/orders?status=CANCELLED&status=CREATED');
    expect(two.json().totalElements).toBe(10);
    const comma = await owner('GET', '/api/v1/orders?status=CANCELLED,CREATED', { lang: 'en' });
    expect(comma.statusCode).toBe(400);
    expect(comma.json().violations[0]).toMatchObject({ field: 'status', code: 'INVALID_VALUE' });
  });

  it('date and amount ranges are inclusive and work alone or together', async () => {
    const dates = await owner('GET', '/api/v1/orders?dateFrom=2026-03-03&dateTo=2026-03-05');
    expect(ids$(dates)).toEqual([ids[4], ids[3], ids[2]]);
    expect(ids$(await owner('GET', '/api/v1/orders?dateFrom=2026-03-09'))).toEqual([ids[9], ids[8]]);
    expect(ids$(await owner('GET', '/api/v1/orders?dateTo=2026-03-01'))).toEqual([ids[0]]);
    // Totals: order i holds i+1 spoons at 10 (order 3 holds 4 teapots at 100).
    const amounts = await owner('GET', '/api/v1/orders?amountFrom=20&amountTo=50');
    expect(ids$(amounts)).toEqual([ids[4], ids[2], ids[1]]);
    const combined = await owner(
      'GET',
      '/api/v1/orders?status=CREATED&dateFrom=2026-03-01&dateTo=2026-03-10&amountFrom=30&amountTo=400',
    );
    expect(ids$(combined)).toEqual([ids[9], ids[8], ids[7], ids[6], ids[5], ids[4], ids[3], ids[2]]);
  });

  it('q matches note, item product name and tracking number, case-insensitively', async () => {
    expect(ids$(await owner('GET', '/api/v1/orders?q=call%20BEFORE'))).toEqual([ids[5]]);
    expect(ids$(await owner('GET', '/api/v1/orders?q=teapot'))).toEqual([ids[3]]);
    expect(ids$(await owner('GET', '/api/v1/orders?q=trk-xyz'))).toEqual([ids[7]]);
    expect(ids$(await owner('GET', '/api/v1/orders?q=%25'))).toEqual([]); // a literal %, not a wildcard
  });

  it('a U+0000 in q (GET or POST search) is a 400 naming q, not a database error', async () => {
    const get = await owner('GET', '/api/v1/orders?q=a%00b', { headers: { 'accept-language': 'en' } });
    expect(get.statusCode).toBe(400);
    expect(get.json()).toMatchObject({
      code: 'VALIDATION_ERROR',
      violations: [{ field: 'q', code: 'INVALID_FORMAT' }],
    });
    const post = await owner('POST', '/api/v1/orders/search', { body: { q: 'a\u0000b' } });
    expect(post.statusCode).toBe(400);
    expect(post.json()).toMatchObject({ violations: [{ field: 'q', code: 'INVALID_FORMAT' }] });
  });

  it('sorts by a whitelist of fields, repeatable, with orderId as the tie-breaker', async () => {
    const byAmount = await owner('GET', '/api/v1/orders?sort=totalAmount,asc&size=3');
    expect(byAmount.json().content.map((o: OrderBody) => o.totalAmount)).toEqual([10, 20, 30]);
    const twoLevels = await owner('GET', '/api/v1/orders?sort=status,asc&sort=createdAt,asc&size=3');
    expect(ids$(twoLevels)).toEqual([ids[0], ids[1], ids[2]]);
  });

  it('reports every parameter problem at once', async () => {
    const res = await owner(
      'GET',
      '/api/v1/orders?page=0&size=101&sort=colour,asc&dateFrom=2026-03-05&dateTo=2026-03-01&amountFrom=9&amountTo=1&status=NEW&foo=1',
      { lang: 'en' },
    );
    expect(res.statusCode).toBe(400);
    const fields = res
      .json()
      .violations.map((v: { field: string; code: string }) => `${v.field}:${v.code}`)
      .sort();
    // Cross-field checks (ranges, sort keys) are reported with the others, in the same answer (Errors 5).
    expect(fields).toEqual(
      [
        'amountFrom:INVALID_RANGE',
        'dateFrom:INVALID_RANGE',
        'foo:UNKNOWN_FIELD',
        'page:MIN',
        'size:MAX',
        'sort:INVALID_QUERY',
        'status:INVALID_VALUE',
      ].sort(),
    );
    // And alone when they are the only problems.
    const semantic = await owner(
      'GET',
      '/api/v1/orders?sort=colour,asc&dateFrom=2026-03-05&dateTo=2026-03-01&amountFrom=9&amountTo=1',
      {
        lang: 'ru',
      },
    );
    expect(
      semantic
        .json()
        .violations.map((v: { field: string; code: string }) => `${v.field}:${v.code}`)
        .sort(),
    ).toEqual(['amountFrom:INVALID_RANGE', 'dateFrom:INVALID_RANGE', 'sort:INVALID_QUERY']);
  });

  it('a customer naming another customer is 403; an admin filters by customerId', async () => {
    expect((await other('GET', `/api/v1/orders?customerId=${ownerId}`)).statusCode).toBe(403);
    const res = await admin('GET', `/api/v1/orders?customerId=${ownerId}&size=100`);
    expect(res.json().totalElements).toBe(10);
  });

  it('admin totals come from the counters and match a real count', async () => {
    const [{ total }] = await db.query(
      `SELECT count(*)::int AS total FROM orders WHERE status = 'CANCELLED'`,
    );
    const res = await admin('GET', '/api/v1/orders?status=CANCELLED&size=1');
    expect(res.json().totalElements).toBe(total);
    const [{ all }] = await db.query('SELECT count(*)::int AS all FROM orders');
    expect((await admin('GET', '/api/v1/orders?size=1')).json().totalElements).toBe(all);
  });

  describe('cursor paging', () => {
    it('walks forward and back, visiting every order exactly once, in the cursor page shape', async () => {
      const first = await owner('GET', '/api/v1/orders?cursor=&size=4');
      expect(first.statusCode).toBe(200);
      const body = first.json();
      expect(body).toMatchObject({ size: 4, hasNext: true, hasPrev: false, nextCursor: expect.any(String) });
      expect(body).not.toHaveProperty('prevCursor');
      expect(body).not.toHaveProperty('totalElements');

      const seen: string[] = [...ids$(first)];
      let cursor = body.nextCursor as string | undefined;
      const pages = [body];
      while (cursor) {
        const page = (
          await owner('GET', `/api/v1/orders?size=4&cursor=${encodeURIComponent(cursor)}`)
        ).json();
        pages.push(page);
        seen.push(...page.content.map((o: OrderBody) => o.orderId));
        cursor = page.nextCursor;
      }
      expect(seen).toEqual([...ids].reverse());
      const last = pages[pages.length - 1];
      expect(last).toMatchObject({ hasNext: false, hasPrev: true });
      expect(last).not.toHaveProperty('nextCursor');

      const back: string[] = [];
      let prev = last.prevCursor as string | undefined;
      while (prev) {
        const page = (await owner('GET', `/api/v1/orders?size=4&cursor=${encodeURIComponent(prev)}`)).json();
        back.unshift(...page.content.map((o: OrderBody) => o.orderId));
        prev = page.prevCursor;
      }
      expect([...back, ...last.content.map((o: OrderBody) => o.orderId)]).toEqual([...ids].reverse());
    });

    it('walks a mixed-direction sort in the same order as the offset list', async () => {
      const sort = 'sort=status,asc&sort=totalAmount,desc';
      const offset = (await owner('GET', `/api/v1/orders?size=100&${sort}`))
        .json()
        .content.map((o: OrderBody) => o.orderId);
      const seen: string[] = [];
      let cursor: string | undefined = '';
      while (cursor !== undefined) {
        const page: { content: OrderBody[]; nextCursor?: string } = (
          await owner('GET', `/api/v1/orders?size=3&${sort}&cursor=${encodeURIComponent(cursor)}`)
        ).json();
        seen.push(...page.content.map((o: OrderBody) => o.orderId));
        cursor = page.nextCursor;
      }
      expect(seen).toEqual(offset);
      expect(seen).toHaveLength(10);
    });

    it('stays exact while new orders are inserted', async () => {
      const sort = 'sort=createdAt,asc';
      const first = (
        await admin('GET', `/api/v1/orders?cursor=&size=3&customerId=${ownerId}&${sort}`)
      ).json();
      // A new order of this customer lands at the end of the ascending order: the walk must still see
      // every original order exactly once, and may see the new one only at the end.
      await postOrder(owner, { note: 'late' });
      const seen = first.content.map((o: OrderBody) => o.orderId);
      let cursor = first.nextCursor;
      while (cursor) {
        const page = (
          await admin(
            'GET',
            `/api/v1/orders?size=3&customerId=${ownerId}&${sort}&cursor=${encodeURIComponent(cursor)}`,
          )
        ).json();
        seen.push(...page.content.map((o: OrderBody) => o.orderId));
        cursor = page.nextCursor;
      }
      expect(seen.slice(0, 10)).toEqual(ids);
      expect(new Set(seen).size).toBe(seen.length);
    });

    it('refuses tampered, foreign and mismatched cursors, and cursor with page', async () => {
      const first = (await owner('GET', '/api/v1/orders?cursor=&size=2')).json();
      const cursor: string = first.nextCursor;
      const [payload, signature] = cursor.split('.');
      const tampered = `${payload.slice(0, -2)}xx.${signature}`;
      for (const url of [
        `/api/v1/orders?size=2&cursor=${encodeURIComponent(tampered)}`,
        `/api/v1/orders?size=2&cursor=garbage`,
        `/api/v1/orders?size=2&status=CREATED&cursor=${encodeURIComponent(cursor)}`,
      ]) {
        const res = await owner('GET', url, { lang: 'en' });
        expect(res.statusCode).toBe(400);
        expect(res.json().violations).toEqual([
          expect.objectContaining({ field: 'cursor', code: 'INVALID_CURSOR' }),
        ]);
      }
      const foreign = await other('GET', `/api/v1/orders?size=2&cursor=${encodeURIComponent(cursor)}`);
      expect(foreign.statusCode).toBe(400);
      const withPage = await owner('GET', `/api/v1/orders?page=1&cursor=`);
      expect(withPage.statusCode).toBe(400);
      expect(withPage.json().violations).toEqual([
        expect.objectContaining({ field: 'cursor', code: 'INVALID_QUERY' }),
      ]);
    });
  });

  describe('POST /orders/search', () => {
    it('returns the same orders as the equivalent GET list', async () => {
      const get = await owner(
        'GET',
        '/api/v1/orders?status=CREATED&dateFrom=2026-03-02&dateTo=2026-03-09&amountFrom=20&amountTo=90&sort=totalAmount,desc&size=5&page=1',
      );
      const post = await owner('POST', '/api/v1/orders/search', {
        body: {
          statuses: ['CREATED'],
          dateRange: { from: '2026-03-02', to: '2026-03-09' },
          totalAmount: { from: 20, to: 90 },
          sort: [{ field: 'totalAmount', direction: 'DESC' }],
          page: 1,
          size: 5,
        },
      });
      expect(post.statusCode).toBe(200);
      expect(post.json()).toEqual(get.json());
      expect(post.json().totalElements).toBeGreaterThan(0);
    });

    it('matches customer region and segment from profiles; applies ownership', async () => {
      const res = await admin('POST', '/api/v1/orders/search', {
        body: { customer: { regionIds: [42], segment: 'VIP' }, size: 100 },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().content.every((o: { customerId: string }) => o.customerId === ownerId)).toBe(true);
      expect(res.json().totalElements).toBeGreaterThanOrEqual(10);
      const foreign = await other('POST', '/api/v1/orders/search', {
        body: { customer: { regionIds: [42] } },
      });
      expect(foreign.json().totalElements).toBe(0);
    });

    it('validates the body: unknown fields and values, reversed ranges, all at once', async () => {
      const res = await owner('POST', '/api/v1/orders/search', {
        body: {
          statuses: ['LOST'],
          dateRange: { from: '2026-03-09', to: '2026-03-01' },
          sort: [{ field: 'colour', direction: 'UP' }],
          size: 0,
          extra: true,
        },
        lang: 'en',
      });
      expect(res.statusCode).toBe(400);
      const fields = res
        .json()
        .violations.map((v: { field: string; code: string }) => `${v.field}:${v.code}`)
        .sort();
      expect(fields).toEqual(
        [
          'dateRange.from:INVALID_RANGE',
          'extra:UNKNOWN_FIELD',
          'size:MIN',
          'sort[0].direction:INVALID_VALUE',
          'sort[0].field:INVALID_VALUE',
          'statuses:INVALID_VALUE',
        ].sort(),
      );
      const reversed = await owner('POST', '/api/v1/orders/search', {
        body: { dateRange: { from: '2026-03-09', to: '2026-03-01' } },
      });
      expect(reversed.json().violations).toEqual([
        expect.objectContaining({ field: 'dateRange.from', code: 'INVALID_RANGE' }),
      ]);
    });
  });
});
