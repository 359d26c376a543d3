import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import {
  createOrderServiceClient,
  ifMatch,
  verifyWebhook,
  WebhookVerificationError,
  type OrderServiceClient,
  type Violation,
} from '@order-service/client';
import { bootTestApp, listenOnFreePort, TestApp } from './support/test-app';
import { bearer } from './support/tokens';

const README = path.resolve(__dirname, '..', 'client', 'README.md');
/** Sections of client/README.md that hold no example to run. */
const WITHOUT_EXAMPLE = ['Install', 'Types'];

/**
 * The examples of client/README.md, one test per section, each doing what its example does against the
 * service (the README links here). Change one, change the other.
 */
describe('client/README.md', () => {
  let t: TestApp;
  let baseUrl: string;
  let token: string;
  let client: OrderServiceClient;
  let productId: string;
  const sections = new Set<string>();
  const section = (title: string, test: () => Promise<void>) => {
    sections.add(title);
    it(title, test);
  };

  beforeAll(async () => {
    t = await bootTestApp();
    baseUrl = await listenOnFreePort(t);
    token = (await bearer(t.config, ['ADMIN'])).replace(/^Bearer /, '');
    const admin = createOrderServiceClient({ baseUrl, token });
    const product = await admin.POST('/api/v1/products', {
      body: { name: `Readme kettle ${randomUUID().slice(0, 8)}`, price: 20, stock: 2 },
    });
    if (product.error) throw product.error;
    productId = product.data.productId;
  });
  afterAll(() => t.close());

  section('Authenticate', async () => {
    let asked = 0;
    const session = { accessToken: () => (asked++, token) };
    client = createOrderServiceClient({
      baseUrl,
      token: () => session.accessToken(),
      language: 'en',
      timeoutMs: 10_000,
    });
    const { data, error } = await client.GET('/api/v1/users/me');
    expect(error).toBeUndefined();
    expect(data?.roles).toContain('ADMIN');
    expect(asked).toBe(1);
  });

  let orderId: string;
  section('Create an order, with a retry', async () => {
    const { data: order, error } = await client.POST('/api/v1/orders', {
      body: { items: [{ productId, quantity: 2 }], note: 'Leave at the door' },
    });
    if (error) throw error;
    expect(order.status).toBe('CREATED');
    orderId = order.orderId;
  });

  section('Handle a problem by its code', async () => {
    // The stock falls below the order's two pieces before it is confirmed: INSUFFICIENT_STOCK.
    const { error: restocked } = await client.PATCH('/api/v1/products/{productId}', {
      params: { path: { productId } },
      body: { stock: 1 },
    });
    expect(restocked).toBeUndefined();
    const handled: string[] = [];
    const showOutOfStock = (detail: string) => handled.push(`out of stock: ${detail}`);
    const refresh = () => handled.push('refresh');
    const showFieldErrors = (violations: readonly Violation[]) =>
      handled.push(`fields: ${violations.length}`);
    const confirm = async () => {
      const { error } = await client.POST('/api/v1/orders/{orderId}/confirm', {
        params: { path: { orderId } },
      });
      if (error) {
        switch (error.code) {
          case 'INSUFFICIENT_STOCK':
            return showOutOfStock(error.detail);
          case 'INVALID_ORDER_STATE':
            return refresh();
          case 'VALIDATION_ERROR':
            return showFieldErrors(error.violations);
          default:
            throw error;
        }
      }
    };
    await confirm();
    expect(handled).toEqual([expect.stringMatching(/^out of stock: \S/)]);
  });

  section('Change what you read, and only that', async () => {
    const read = await client.GET('/api/v1/orders/{orderId}', { params: { path: { orderId } } });
    const { error } = await client.PATCH('/api/v1/orders/{orderId}', {
      params: { path: { orderId }, header: { ...ifMatch(read) } },
      body: { note: 'Ring twice' },
    });
    expect(error).toBeUndefined();
    const again = await client.PATCH('/api/v1/orders/{orderId}', {
      params: { path: { orderId }, header: { ...ifMatch(read) } },
      body: { note: 'Knock' },
    });
    expect(again.error?.code).toBe('CONCURRENT_MODIFICATION');
  });

  section('Page through orders', async () => {
    const seen: string[] = [];
    for await (const order of client.orders.all({ status: ['CREATED'], size: 100 })) {
      seen.push(order.orderId);
    }
    expect(seen).toContain(orderId);
  });

  section('Follow the event feed', async () => {
    const saved: string[] = [];
    const store = { load: async () => saved.at(-1), save: (next: string) => void saved.push(next) };
    const handled: string[] = [];
    const reserveShipping = async (id: string, items: unknown[]) => {
      handled.push(`reserve ${id} ${items.length}`);
    };
    const releaseShipping = async (id: string) => {
      handled.push(`release ${id}`);
    };
    // Start where the feed is now (a filter nothing matches ends at once, past every event), then cancel
    // the order of the sections above and confirm a new one.
    for await (const _ of client.events.all(
      { customerId: randomUUID() },
      { onCursor: (next) => store.save(next) },
    )) {
      // none
    }
    const cancelled = await client.POST('/api/v1/orders/{orderId}/cancel', {
      params: { path: { orderId } },
      body: { reason: 'Changed my mind' },
    });
    expect(cancelled.error).toBeUndefined();
    const created = await client.POST('/api/v1/orders', { body: { items: [{ productId, quantity: 1 }] } });
    if (created.error) throw created.error;
    const confirmed = await client.POST('/api/v1/orders/{orderId}/confirm', {
      params: { path: { orderId: created.data.orderId } },
    });
    expect(confirmed.error).toBeUndefined();

    const controller = new AbortController(); // controller.abort() stops the loop
    let cursor = await store.load(); // undefined the first time: from the oldest event kept
    const follow = (async () => {
      for await (const event of client.events.all(
        { type: ['ORDER_CONFIRMED', 'ORDER_CANCELLED'], cursor, follow: { intervalMs: 20 } },
        { signal: controller.signal, onCursor: (next) => store.save(next) },
      )) {
        if (event.type === 'ORDER_CONFIRMED') await reserveShipping(event.orderId, event.data.items);
        else if (event.type === 'ORDER_CANCELLED') await releaseShipping(event.orderId);
        if (handled.length === 2) controller.abort();
      }
    })();
    await expect(follow).rejects.toMatchObject({ name: 'AbortError' });
    expect(handled).toEqual([`release ${orderId}`, `reserve ${created.data.orderId} 1`]);
    cursor = await store.load();
    expect(cursor).toEqual(expect.any(String));
  });

  section('Verify a webhook', async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const handled: unknown[] = [];
    const handle = (event: unknown) => handled.push(event);
    const server: Server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        try {
          const event = verifyWebhook(secret, request.headers, Buffer.concat(chunks));
          handle(event);
          response.writeHead(204).end();
        } catch (error) {
          response.writeHead(error instanceof WebhookVerificationError ? 400 : 500).end();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const body = JSON.stringify({ eventId: randomUUID(), type: 'ORDER_CREATED', sequence: 1 });
      const id = randomUUID();
      const timestamp = String(Math.floor(Date.now() / 1000));
      const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
      const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
      const deliver = (payload: string) =>
        fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'webhook-id': id,
            'webhook-timestamp': timestamp,
            'webhook-signature': `v1,${signature}`,
          },
          body: payload,
        });
      expect((await deliver(body)).status).toBe(204);
      expect((await deliver(body.replace('"sequence":1', '"sequence":2'))).status).toBe(400);
      expect(handled).toEqual([JSON.parse(body)]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('has a test for each section with an example', () => {
    const titles = [...fs.readFileSync(README, 'utf8').matchAll(/^## (.+)$/gm)].map(([, title]) => title);
    expect(titles.filter((title) => !WITHOUT_EXAMPLE.includes(title))).toEqual([...sections]);
  });
});
