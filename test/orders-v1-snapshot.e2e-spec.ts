import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { adminClient, customerClient } from './support/callers';
import { ApiClient, CallOptions, Method, MERGE_PATCH, withIdempotencyKey } from './support/http-client';
import { bootTestApp, TestApp } from './support/test-app';

/**
 * v1 does not change by a byte (docs/versioning.md). This suite plays a fixed
 * script of v1 requests on a fresh customer (products, create, reads, lists, paging, search, changes,
 * actions, items, batch, problems in both languages and without Accept-Language, a 304) and compares every
 * answer — status, the headers that describe the response, and the body exactly as sent — with the
 * committed transcript `snapshots/orders-v1.snapshot.txt`.
 *
 * Only what differs between runs is normalised: each uuid becomes `<id-N>` in order of first appearance,
 * timestamps `<timestamp>`, cursors `<cursor>`, traceparents `<traceparent>`. Field order, number
 * formatting, absent fields and header values are compared as they are.
 *
 * A deliberate change of v1 is a breaking change and needs a new version instead. To rewrite the
 * transcript after a change that is not one (a new optional field, a new endpoint in the script), run
 * this suite with `UPDATE_V1_SNAPSHOT=1` and review the diff.
 */
const SNAPSHOT = path.join(__dirname, 'snapshots', 'orders-v1.snapshot.txt');

/** Headers that describe the response itself; per-request ones (traceparent, RateLimit-*, date) are not. */
const DESCRIBING_HEADERS = [
  'content-type',
  'content-language',
  'cache-control',
  'etag',
  'location',
  'allow',
  'www-authenticate',
  'deprecation',
  'sunset',
  'link',
];

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const TIMESTAMP = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/g;
const TRACEPARENT = /00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]/g;
const CURSOR = /"(nextCursor|prevCursor)":"[^"]*"/g;
const CURSOR_PARAMETER = /([?&]cursor=)[^&\s]+/g;

/** Replaces what differs between runs; uuids keep their identity (`<id-N>`) across the transcript. */
class Normaliser {
  private readonly ids = new Map<string, string>();

  text(value: string): string {
    return value
      .replace(TRACEPARENT, '<traceparent>')
      .replace(CURSOR, '"$1":"<cursor>"')
      .replace(CURSOR_PARAMETER, '$1<cursor>')
      .replace(UUID, (id) => this.id(id.toLowerCase()))
      .replace(TIMESTAMP, '<timestamp>');
  }

  private id(uuid: string): string {
    let name = this.ids.get(uuid);
    if (!name) {
      name = `<id-${this.ids.size + 1}>`;
      this.ids.set(uuid, name);
    }
    return name;
  }
}

describe('v1 orders: the transcript of a fixed script is unchanged', () => {
  let t: TestApp;
  const transcript: string[] = [];
  const normaliser = new Normaliser();

  beforeAll(async () => {
    t = await bootTestApp();
  });
  afterAll(() => t.close());

  /** Sends one request and appends its normalised exchange to the transcript. */
  function recorder(client: ApiClient, who: string) {
    return async (
      method: Method,
      url: string,
      options: CallOptions = {},
    ): Promise<LightMyRequestResponse> => {
      const res = await client(method, url, options);
      const headers = DESCRIBING_HEADERS.filter((name) => res.headers[name] !== undefined).map(
        (name) => `${name}: ${String(res.headers[name])}`,
      );
      const request = [`### ${who} ${method} ${url}`];
      if (options.lang) request.push(`accept-language: ${options.lang}`);
      if (options.body !== undefined) request.push(JSON.stringify(options.body));
      transcript.push(
        normaliser.text([...request, `--> ${res.statusCode}`, ...headers, '', res.body, ''].join('\n')),
      );
      return res;
    };
  }

  it('answers the script exactly as recorded', async () => {
    const admin = recorder(await adminClient(t), 'admin');
    const customer = recorder(await customerClient(t), 'customer');
    const other = recorder(await customerClient(t), 'other customer');
    const idempotent = (options: CallOptions = {}): CallOptions => ({
      ...options,
      headers: withIdempotencyKey(undefined, options.headers),
    });

    // The catalogue.
    const kettle = (
      await admin('POST', '/api/v1/products', { body: { name: 'Kettle', price: 1999.9, stock: 10 } })
    ).json<{ productId: string }>().productId;
    const mug = (
      await admin('POST', '/api/v1/products', { body: { name: 'Mug', price: 250.05, stock: 10 } })
    ).json<{ productId: string }>().productId;
    const spoon = (
      await admin('POST', '/api/v1/products', { body: { name: 'Spoon', price: 0.5, stock: 100 } })
    ).json<{ productId: string }>().productId;
    await customer('GET', `/api/v1/products/${kettle}`);

    // Creates: with everything, empty, without an address.
    const full = (
      await customer(
        'POST',
        '/api/v1/orders',
        idempotent({
          body: {
            items: [
              { productId: kettle, quantity: 1 },
              { productId: mug, quantity: 2 },
            ],
            deliveryAddress: { streetName: 'Tverskaya 1', zipCode: '125009' },
            note: 'ring twice',
          },
        }),
      )
    ).json<{ orderId: string; items: Array<{ itemId: string }> }>();
    const empty = (await customer('POST', '/api/v1/orders', idempotent({ body: {} }))).json<{
      orderId: string;
    }>().orderId;
    const spoons = (
      await customer(
        'POST',
        '/api/v1/orders',
        idempotent({ body: { items: [{ productId: spoon, quantity: 3 }] } }),
      )
    ).json<{ orderId: string }>().orderId;

    // Reads.
    const read = await customer('GET', `/api/v1/orders/${full.orderId}`);
    await customer('GET', `/api/v1/orders/${full.orderId}`, {
      headers: { 'if-none-match': String(read.headers.etag) },
    });
    await customer('GET', '/api/v1/orders/latest');
    await customer('GET', '/api/v1/orders');
    await customer('GET', '/api/v1/orders?status=CREATED&sort=totalAmount,asc&size=2&page=1');
    await customer('GET', `/api/v1/orders?amountFrom=1&amountTo=10000&q=ring`);
    const first = await customer('GET', '/api/v1/orders?cursor=&size=2');
    const next = first.json<{ nextCursor: string }>().nextCursor;
    await customer('GET', `/api/v1/orders?cursor=${encodeURIComponent(next)}&size=2`);
    await customer('POST', '/api/v1/orders/search', {
      body: { statuses: ['CREATED'], sort: [{ field: 'createdAt', direction: 'ASC' }], page: 1, size: 10 },
    });
    await customer('GET', `/api/v1/orders/${full.orderId}/items`);
    await customer('GET', `/api/v1/orders/${full.orderId}/items/${full.items[0].itemId}`);

    // Changes.
    await customer(
      'PATCH',
      `/api/v1/orders/${full.orderId}`,
      idempotent({ body: { note: 'leave at the door' }, contentType: MERGE_PATCH }),
    );
    await customer('PUT', `/api/v1/orders/${empty}`, {
      body: {
        items: [{ productId: spoon, quantity: 1 }],
        deliveryAddress: { streetName: 'Arbat 10', zipCode: '119002' },
      },
    });
    const added = (
      await customer(
        'POST',
        `/api/v1/orders/${empty}/items`,
        idempotent({ body: { productId: mug, quantity: 1 } }),
      )
    ).json<{ itemId: string }>().itemId;
    await customer('DELETE', `/api/v1/orders/${empty}/items/${added}`);

    // Actions through the state table.
    await customer('POST', `/api/v1/orders/${full.orderId}/confirm`, idempotent());
    await admin(
      'POST',
      `/api/v1/orders/${full.orderId}/ship`,
      idempotent({ body: { trackingNumber: 'TRACK-1', carrier: 'CDEK' } }),
    );
    await admin('POST', `/api/v1/orders/${full.orderId}/deliver`, idempotent());
    await admin('POST', `/api/v1/orders/${full.orderId}/refund`, idempotent({ body: { reason: 'broken' } }));
    await customer(
      'POST',
      `/api/v1/orders/${spoons}/cancel`,
      idempotent({ body: { reason: 'changed mind' } }),
    );
    await customer('DELETE', `/api/v1/orders/${spoons}`);

    // Batch, with one failing item, in both languages.
    for (const lang of ['ru', 'en'] as const) {
      await customer(
        'POST',
        '/api/v1/orders/batch',
        idempotent({
          lang,
          body: {
            items: [
              { productId: spoon, quantity: 1 },
              { productId: '00000000-0000-4000-8000-000000000000', quantity: 1 },
            ],
          },
        }),
      );
    }

    // Problems: default language (no Accept-Language), ru, en.
    await customer('GET', '/api/v1/orders/00000000-0000-4000-8000-000000000001');
    await customer('GET', '/api/v1/orders/00000000-0000-4000-8000-000000000001', { lang: 'ru' });
    await customer('GET', '/api/v1/orders/00000000-0000-4000-8000-000000000001', { lang: 'en' });
    await customer('GET', '/api/v1/orders/not-a-uuid');
    await customer('POST', '/api/v1/orders', idempotent({ body: { items: [{ quantity: 0 }], x: 1 } }));
    await customer('POST', `/api/v1/orders/${full.orderId}/confirm`, idempotent({ lang: 'en' }));
    await other('GET', `/api/v1/orders/${full.orderId}`);
    await other('GET', '/api/v1/orders/latest', { lang: 'en' });
    await customer('PUT', '/api/v1/orders');

    // Profiles (the users module gains settings beside them).
    await customer('GET', '/api/v1/users/me');

    const actual = transcript.join('\n');
    if (process.env.UPDATE_V1_SNAPSHOT === '1') writeFileSync(SNAPSHOT, actual);
    expect(actual).toBe(readFileSync(SNAPSHOT, 'utf8'));
  });
});
