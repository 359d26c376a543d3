import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bootTestApp, listenOnFreePort, type TestApp } from './support/test-app';
import { bearer } from './support/tokens';
import { eventually } from './support/wait';

const GUIDE = path.resolve(__dirname, '..', 'docs', 'api-guide.md');

/** The text of a `## ` section of the API guide, its lines joined by single spaces (wrapping aside). */
function guideSection(title: string): string {
  const guide = fs.readFileSync(GUIDE, 'utf8');
  const start = guide.indexOf(`\n## ${title}\n`);
  if (start === -1) throw new Error(`the API guide has no section "${title}"`);
  const end = guide.indexOf('\n## ', start + 1);
  return guide.slice(start, end === -1 ? undefined : end).replace(/\s+/g, ' ');
}

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/**
 * What the API guide says about the headers and fields a client relies on, each checked against the service:
 * a test states the claim (the sentence the guide must still say) and what the service must do for it to be
 * true. Rewording a claim, or changing what the service does, fails here until both agree again.
 */
describe('the API guide says what the service does', () => {
  let t: TestApp;
  let baseUrl: string;
  let adminToken: string;
  let customerToken: string;
  let productId: string;

  async function call(
    method: string,
    url: string,
    {
      token = customerToken,
      body,
      headers = {},
    }: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const response = await fetch(`${baseUrl}${url}`, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : {} };
  }

  async function newOrder(quantity = 1): Promise<Record<string, unknown>> {
    const created = await call('POST', '/api/v1/orders', {
      headers: { 'Idempotency-Key': randomUUID() },
      body: {
        items: [{ productId, quantity }],
        deliveryAddress: { streetName: 'Tverskaya 1', zipCode: '125009' },
      },
    });
    expect(created.status).toBe(201);
    return created.body;
  }

  beforeAll(async () => {
    t = await bootTestApp();
    baseUrl = await listenOnFreePort(t);
    adminToken = (await bearer(t.config, ['ADMIN'])).replace(/^Bearer /, '');
    customerToken = (await bearer(t.config, ['CUSTOMER'], randomUUID())).replace(/^Bearer /, '');
    const product = await call('POST', '/api/v1/products', {
      token: adminToken,
      body: { name: `Claims kettle ${randomUUID().slice(0, 8)}`, price: 12.5, stock: 100 },
    });
    productId = product.body.productId as string;
  });
  afterAll(() => t.close());

  it('rate limits: RateLimit-Reset is the Unix time the window ends, on every answer under /api', async () => {
    expect(guideSection('Rate limits')).toMatch(
      /`RateLimit-Reset` \(the Unix time, in seconds, at which the window ends/,
    );
    for (const url of ['/api/v1/products?size=1', `/api/v1/orders/${randomUUID()}`]) {
      const before = Math.floor(Date.now() / 1000);
      const answer = await call('GET', url);
      const after = Math.ceil(Date.now() / 1000);
      const limit = Number(answer.headers.get('RateLimit-Limit'));
      const remaining = Number(answer.headers.get('RateLimit-Remaining'));
      const reset = Number(answer.headers.get('RateLimit-Reset'));
      expect({ url, limit, remaining }).toEqual({
        url,
        limit: t.config.rateLimit.limit,
        remaining: expect.any(Number),
      });
      expect(remaining).toBeLessThan(limit);
      // A point in time within the window from now, not a count of seconds.
      expect(reset).toBeGreaterThanOrEqual(before);
      expect(reset).toBeLessThanOrEqual(after + t.config.rateLimit.windowSeconds);
    }
  });

  it('deprecation: Deprecation: true, Sunset an HTTP-date, Link to the successor', async () => {
    expect(guideSection('Versions and deprecation')).toContain(
      '`Deprecation: true`, `Sunset` (the HTTP-date when it stops), and `Link` to its successor (`rel="successor-version"`)',
    );
    const order = await newOrder();
    const answer = await call('GET', `/api/v1/orders/${order.orderId as string}/status`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('Deprecation')).toBe('true');
    const sunset = answer.headers.get('Sunset') ?? '';
    expect(sunset).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    expect(answer.headers.get('Link')).toMatch(/<\/api\/v2\/orders\/[^>]+>; rel="successor-version"/);
  });

  it('money: v1 a JSON number with at most two decimals, v2 text with exactly two', async () => {
    expect(guideSection('Before you start')).toContain(
      'money in v1 is a JSON number with at most two decimals (`12.5`, `390.25`, `3271`',
    );
    expect(guideSection('Before you start')).toContain(
      'in v2 an object with the amount as text with exactly two decimals',
    );
    const single = await newOrder(1);
    const double = await newOrder(2);
    expect(single.totalAmount).toBe(12.5);
    expect(double.totalAmount).toBe(25);
    const items = single.items as Array<Record<string, unknown>>;
    expect(items[0].unitPrice).toBe(12.5);
    for (const amount of [single.totalAmount, double.totalAmount, items[0].unitPrice]) {
      expect(typeof amount).toBe('number');
      const cents = (amount as number) * 100;
      expect(Math.abs(cents - Math.round(cents))).toBeLessThan(1e-9);
    }
    const v2 = await call('GET', `/api/v2/orders/${single.orderId as string}`);
    expect(v2.body.total).toEqual({ amount: '12.50', currency: 'RUB' });
  });

  it("batch results: index, status, and the order's id on SUCCESS or error {code, detail} on ERROR", async () => {
    expect(guideSection('Batches')).toContain(
      '(`index`, `status` `SUCCESS` or `ERROR`, and the `orderId` of the created or confirmed order, or `error: {code, detail}`)',
    );
    const batch = await call('POST', '/api/v1/orders/batch', {
      body: {
        items: [
          { productId, quantity: 1 },
          { productId: randomUUID(), quantity: 1 },
        ],
      },
    });
    expect(batch.status).toBe(200);
    expect(batch.body.results).toEqual([
      { index: 0, status: 'SUCCESS', orderId: expect.any(String) },
      { index: 1, status: 'ERROR', error: { code: 'PRODUCT_NOT_FOUND', detail: expect.any(String) } },
    ]);
    expect(batch.body.summary).toEqual({ total: 2, succeeded: 1, failed: 1 });
  });

  it('action bodies: a missing required body is a violation on "", a missing field names the field', async () => {
    const section = guideSection('Order actions');
    expect(section).toContain('| `cancel` | owner or admin | required: `{ "reason": "…" }`');
    expect(section).toContain('| `ship` | admin | required: `{ "trackingNumber": "…", "carrier": "…" }`');
    expect(section).toContain('with one violation on the whole body: `field` `""`, code `REQUIRED`');
    expect(section).toContain('(`{"field":"reason","code":"REQUIRED"}`)');
    const order = await newOrder();
    const at = `/api/v1/orders/${order.orderId as string}`;
    const violations = (answer: Answer) =>
      (answer.body.violations as Array<{ field: string; code: string }>).map(({ field, code }) => ({
        field,
        code,
      }));

    const noBody = await call('POST', `${at}/cancel`);
    expect(noBody).toMatchObject({ status: 400, body: { code: 'VALIDATION_ERROR' } });
    expect(violations(noBody)).toEqual([{ field: '', code: 'REQUIRED' }]);
    expect(violations(await call('POST', `${at}/cancel`, { body: {} }))).toEqual([
      { field: 'reason', code: 'REQUIRED' },
    ]);
    expect((await call('POST', `${at}/confirm`)).status).toBe(200);
    const shipWithout = await call('POST', `${at}/ship`, { token: adminToken, body: {} });
    expect(violations(shipWithout).sort((a, b) => a.field.localeCompare(b.field))).toEqual([
      { field: 'carrier', code: 'REQUIRED' },
      { field: 'trackingNumber', code: 'REQUIRED' },
    ]);
    const shipped = await call('POST', `${at}/ship`, {
      token: adminToken,
      body: { trackingNumber: 'RA123456789RU', carrier: 'Post' },
    });
    expect(shipped.body).toMatchObject({
      status: 'SHIPPED',
      trackingNumber: 'RA123456789RU',
      carrier: 'Post',
    });
    expect((await call('POST', `${at}/deliver`, { token: adminToken })).status).toBe(200);
    expect((await call('POST', `${at}/refund`, { token: adminToken })).body.status).toBe('REFUNDED');
  });

  it('cursors: cursor= starts both the order list and the feed; a foreign cursor is an INVALID_CURSOR violation', async () => {
    expect(guideSection('Lists: paging and search')).toContain(
      'any other is 400 `VALIDATION_ERROR` with a violation on `cursor` whose code is `INVALID_CURSOR`',
    );
    expect(guideSection('Lists: paging and search')).toContain(
      '`cursor=` (empty for the first chunk) answers `content`, `size`, `hasNext`, `hasPrev`, and `nextCursor`/`prevCursor` while there is more',
    );
    expect(guideSection("Events: the feed and an order's timeline")).toContain(
      'Without a cursor, or with `cursor=` (empty, as the order lists take it), the feed starts at the oldest event kept',
    );
    const order = await newOrder();
    const first = await call('GET', '/api/v1/orders?cursor=&size=1');
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(
      expect.arrayContaining(['content', 'hasNext', 'hasPrev', 'size']),
    );
    const invalid = await call('GET', '/api/v1/orders?cursor=not-a-cursor');
    expect(invalid).toMatchObject({
      status: 400,
      body: {
        code: 'VALIDATION_ERROR',
        violations: [expect.objectContaining({ field: 'cursor', code: 'INVALID_CURSOR' })],
      },
    });
    // The feed serves an event once its horizon has passed it, normally within a second of its commit.
    const feed = await eventually("the feed to serve the order's event", async () => {
      const page = await call('GET', `/api/v1/events?cursor=&orderId=${order.orderId as string}`, {
        token: adminToken,
      });
      return page.status !== 200 || (page.body.content as unknown[]).length > 0 ? page : undefined;
    });
    expect(feed.status).toBe(200);
    expect((feed.body.content as Array<{ type: string }>).map((event) => event.type)).toEqual([
      'ORDER_CREATED',
    ]);
  });
});
