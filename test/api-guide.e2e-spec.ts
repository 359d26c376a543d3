import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import * as fs from 'node:fs';
import type * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import * as clientPackage from '@order-service/client';
import { createOrderServiceClient, type OrderServiceClient } from '@order-service/client';
import {
  docExamples,
  printedStatuses,
  recordingHttp,
  runShellExample,
  runTypeScriptExample,
  typeCheckExamples,
  type DocExample,
} from './support/doc-examples';
import { bootTestApp, listenOnFreePort, type TestApp } from './support/test-app';
import { bearer } from './support/tokens';
import { until } from './support/wait';

const ROOT = path.resolve(__dirname, '..');

/**
 * The documents whose examples run here (the API guide, the README and the client's README): every fenced `sh example` / `ts example` block (test/support/
 * doc-examples.ts says how a block declares what it must print), against the booted service on the run's
 * PostgreSQL. Each example gets a fresh customer with a product and a CREATED order of their own, so examples
 * neither see nor disturb each other.
 */
const DOCUMENTS = ['docs/api-guide.md', 'README.md', 'client/README.md'];

/** Sections of the API guide that have no example of their own. */
const GUIDE_WITHOUT_EXAMPLES = ['Before you start'];
/** Sections of the client's README that have no example of their own (the package test covers them). */
const CLIENT_README_WITHOUT_EXAMPLES = ['Install', 'Supported module settings and runtimes', 'Types'];

/** What the examples may use without making it, as the API guide's "Before you start" describes. */
const CONTEXT_NAMES = [
  'client',
  'admin',
  'baseUrl',
  'token',
  'customerId',
  'productId',
  'orderId',
  'console',
  'process',
];
const CONTEXT_DECLARATIONS = `
import type { OrderServiceClient } from '@order-service/client';
declare const client: OrderServiceClient;
declare const admin: OrderServiceClient;
declare const baseUrl: string;
declare const token: string;
declare const customerId: string;
declare const productId: string;
declare const orderId: string;
`;

/** The modules examples may import; `node:http`'s servers are kept in `servers` (a receiver's). */
function importsFor(servers: http.Server[]) {
  const modules: Record<string, unknown> = {
    '@order-service/client': clientPackage,
    'node:http': recordingHttp(servers),
  };
  return (name: string) => {
    if (!(name in modules))
      throw new Error(`an example imports ${name}, which the examples' test does not provide`);
    return modules[name];
  };
}

const examplesOf = (document: string) => docExamples(fs.readFileSync(path.join(ROOT, document), 'utf8'));
const title = (example: DocExample, index: number) =>
  `${example.section} #${index + 1} (${example.language}, line ${example.line})`;

describe('documentation examples', () => {
  let t: TestApp;
  let baseUrl: string;
  let adminToken: string;
  let admin: OrderServiceClient;

  beforeAll(async () => {
    // Receivers of the examples listen on 127.0.0.1, which webhook destinations may be only when allowed.
    t = await bootTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    baseUrl = await listenOnFreePort(t);
    adminToken = (await bearer(t.config, ['ADMIN'])).replace(/^Bearer /, '');
    admin = createOrderServiceClient({ baseUrl, token: adminToken, language: 'en' });
  });
  afterAll(() => t.close());

  /** A customer of their own, a product and a CREATED order of theirs: what an example may name. */
  async function freshCaller() {
    const customerId = randomUUID();
    const token = (await bearer(t.config, ['CUSTOMER'], customerId)).replace(/^Bearer /, '');
    const product = await admin.POST('/api/v1/products', {
      body: { name: `Guide kettle ${randomUUID().slice(0, 8)}`, price: 12.5, stock: 10 },
    });
    if (product.error) throw product.error;
    const client = createOrderServiceClient({ baseUrl, token, language: 'en' });
    const order = await client.POST('/api/v1/orders', {
      body: { items: [{ productId: product.data.productId, quantity: 1 }], note: 'Leave at the door' },
    });
    if (order.error) throw order.error;
    return { customerId, token, client, productId: product.data.productId, orderId: order.data.orderId };
  }

  /** The webhook endpoints that exist now (an example may register one: the test deletes it afterwards). */
  async function webhookEndpointIds(): Promise<string[]> {
    const ids: string[] = [];
    for (let page = 1; ; page += 1) {
      const { data, error } = await admin.GET('/api/v1/webhook-endpoints', {
        params: { query: { page, size: 100 } },
      });
      if (error) throw error;
      ids.push(...data.content.map((endpoint) => endpoint.webhookEndpointId));
      if (page >= data.totalPages) return ids;
    }
  }

  async function deleteWebhookEndpoints(ids: string[]): Promise<void> {
    for (const webhookEndpointId of ids) {
      const { error } = await admin.DELETE('/api/v1/webhook-endpoints/{webhookEndpointId}', {
        params: { path: { webhookEndpointId } },
      });
      if (error) throw error;
    }
  }

  /**
   * A receiver example gets a real delivery: the receiver it started is registered as an endpoint for
   * ORDER_CREATED (its secret is the example's WEBHOOK_SECRET), the caller creates an order, and the
   * delivery of its event must succeed (the receiver verified it and answered 2xx).
   */
  async function deliverTo(
    servers: http.Server[],
    env: Record<string, string | undefined>,
    output: () => string,
    caller: Awaited<ReturnType<typeof freshCaller>>,
  ): Promise<void> {
    const [server] = servers;
    if (!server) throw new Error('the receiver example started no server');
    if (!server.listening) await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const endpoint = await admin.POST('/api/v1/webhook-endpoints', {
      body: { url: `http://127.0.0.1:${port}/`, eventTypes: ['ORDER_CREATED'] },
    });
    if (endpoint.error) throw endpoint.error;
    env.WEBHOOK_SECRET = endpoint.data.secret;
    const order = await caller.client.POST('/api/v1/orders', {
      body: { items: [{ productId: caller.productId, quantity: 1 }] },
    });
    if (order.error) throw order.error;
    await until(
      'the delivery of ORDER_CREATED to succeed, and the receiver to print it',
      async () => {
        const { data, error } = await admin.GET('/api/v1/webhook-deliveries', {
          params: { query: { webhookEndpointId: endpoint.data.webhookEndpointId, status: 'SUCCEEDED' } },
        });
        if (error) throw error;
        const delivered = data.content.some((delivery) => delivery.eventType === 'ORDER_CREATED');
        return delivered && output().includes('ORDER_CREATED');
      },
      { intervalMs: 50 },
    );
  }

  describe.each(DOCUMENTS)('%s', (document) => {
    const examples = examplesOf(document);

    it('has examples, each runnable', () => {
      expect(examples.length).toBeGreaterThan(0);
    });

    it.each(examples.map((example, index) => [title(example, index), example] as const))(
      '%s',
      async (_, example) => {
        const caller = await freshCaller();
        const endpointsBefore = new Set(await webhookEndpointIds());
        const servers: http.Server[] = [];
        let output: string;
        try {
          if (example.language === 'sh') {
            const run = await runShellExample(example.code, {
              BASE_URL: baseUrl,
              TOKEN: caller.token,
              ADMIN_TOKEN: adminToken,
              CUSTOMER_ID: caller.customerId,
              PRODUCT_ID: caller.productId,
              ORDER_ID: caller.orderId,
            });
            output = run.output;
            expect({ exitCode: run.exitCode, output }).toEqual({ exitCode: 0, output });
            if (example.status !== undefined) {
              expect({ status: printedStatuses(output).at(-1), output }).toEqual({
                status: example.status,
                output,
              });
            }
          } else {
            const lines: string[] = [];
            const env: Record<string, string | undefined> = {};
            const log = (...values: unknown[]) =>
              lines.push(values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(' '));
            await runTypeScriptExample(
              example.code,
              {
                client: caller.client,
                admin,
                baseUrl,
                token: caller.token,
                customerId: caller.customerId,
                productId: caller.productId,
                orderId: caller.orderId,
                console: { log, info: log, warn: log, error: log },
                process: { env },
              },
              importsFor(servers),
            );
            if (example.receiver) await deliverTo(servers, env, () => lines.join('\n'), caller);
            output = lines.join('\n');
          }
          if (example.prints !== undefined) {
            expect({ prints: output.toLowerCase().includes(example.prints.toLowerCase()), output }).toEqual({
              prints: true,
              output,
            });
          }
        } finally {
          await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
          await deleteWebhookEndpoints((await webhookEndpointIds()).filter((id) => !endpointsBefore.has(id)));
        }
      },
      180_000,
    );

    it('its TypeScript examples compile against the client', () => {
      const typed = examples
        .map((example, index) => ({
          name: title(example, index),
          code: example.code,
          language: example.language,
        }))
        .filter((example) => example.language === 'ts');
      if (typed.length === 0) return;
      const messages = typeCheckExamples(
        typed,
        CONTEXT_DECLARATIONS,
        CONTEXT_NAMES,
        path.join(ROOT, 'tsconfig.json'),
      );
      expect(messages).toEqual([]);
    });
  });

  it("every section of the client's README has an example", () => {
    const readme = fs.readFileSync(path.join(ROOT, 'client/README.md'), 'utf8');
    const sections = [...readme.matchAll(/^## (.+)$/gm)].map(([, heading]) => heading);
    const examples = examplesOf('client/README.md');
    const missing = sections.filter(
      (section) =>
        !CLIENT_README_WITHOUT_EXAMPLES.includes(section) && !examples.some((e) => e.section === section),
    );
    expect(missing).toEqual([]);
  });

  it('every section of the API guide has an example with curl and one with the client', () => {
    const guide = fs.readFileSync(path.join(ROOT, 'docs/api-guide.md'), 'utf8');
    const sections = [...guide.matchAll(/^## (.+)$/gm)].map(([, heading]) => heading);
    const examples = examplesOf('docs/api-guide.md');
    const missing = sections
      .filter((section) => !GUIDE_WITHOUT_EXAMPLES.includes(section))
      .flatMap((section) =>
        (['sh', 'ts'] as const)
          .filter((language) => !examples.some((e) => e.section === section && e.language === language))
          .map((language) => `${section}: no ${language} example`),
      );
    expect(missing).toEqual([]);
  });
});
