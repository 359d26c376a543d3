import * as fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { randomUUID } from 'node:crypto';
import { multipartBody, sampleFile } from '../support/multipart';
import type { TestApp } from '../support/test-app';
import { bearer } from '../support/tokens';
import { type Failure, FAILURE_KINDS, type RequestContext, ResponseJudge } from './checks';
import { knownDefect } from './known-failures';
import { type FuzzRequest, type Operation, operationsOf, RequestFactory } from './requests';
import { isObject, type OpenApiDocument, SchemaValidators } from './schema';
import { type CallerName, World } from './world';

export interface CampaignOptions {
  /** Requests to send, seeding and refills not counted. */
  requests: number;
  seed: number;
}

export interface CampaignResult {
  seed: number;
  sent: number;
  valid: number;
  invalid: number;
  operations: number;
  /** Requests per operation and caller, so a report shows every one was reached. */
  coverage: Record<string, Record<CallerName, number>>;
  /** Statuses answered, for a sense of what the campaign reached. */
  statuses: Record<string, number>;
  /** Successful answers per operation: a success body is what the schema check needs. */
  successes: Record<string, number>;
  failures: Failure[];
}

/** Share of requests meant to break the document (the others keep to it). */
const INVALID_PERCENT = 40;
/** Share of requests sent without a token. */
const ANONYMOUS_PERCENT = 5;
/** A few fresh orders every this many requests: actions and deletions use them up. */
const REFILL_EVERY = 250;

/**
 * Sends `options.requests` requests generated from the served OpenAPI document to every operation, as an
 * admin, a customer and (now and then) no one, valid and invalid, on ids of real resources, and judges
 * every answer against the document. Deterministic for a seed, up to what the service itself draws (ids,
 * times): a failure carries the exact request, which replays it.
 */
export async function runCampaign(t: TestApp, options: CampaignOptions): Promise<CampaignResult> {
  const served = await t.app.inject({ method: 'GET', url: '/docs/openapi.json' });
  const document = served.json<OpenApiDocument>();
  const validators = new SchemaValidators(document);
  const judge = new ResponseJudge(document, validators);
  const world = new World();
  const factory = new RequestFactory(document, validators, world);
  const operations = operationsOf(document);

  const ids = { admin: randomUUID(), customer: randomUUID() };
  const tokens: Record<CallerName, string | undefined> = {
    admin: await bearer(t.config, ['ADMIN'], ids.admin),
    customer: await bearer(t.config, ['CUSTOMER'], ids.customer),
    anonymous: undefined,
  };
  world.add('userId', ids.admin, 'admin');
  world.add('userId', ids.customer, 'customer');

  const send = async (
    caller: CallerName,
    request: Pick<FuzzRequest, 'method' | 'url' | 'headers' | 'payload'>,
    pathIds: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> => {
    const headers = { ...request.headers, ...(tokens[caller] ? { authorization: tokens[caller] } : {}) };
    const res = await t.app.inject({
      method: request.method as InjectOptions['method'],
      url: request.url,
      headers,
      payload: request.payload,
    });
    world.harvest(res, caller, pathIds);
    return res;
  };
  await seedWorld(send, ids.customer);

  const result: CampaignResult = {
    seed: options.seed,
    sent: 0,
    valid: 0,
    invalid: 0,
    operations: operations.length,
    coverage: {},
    statuses: {},
    successes: {},
    failures: [],
  };
  const byId = new Map(operations.map((operation) => [operation.operationId, operation]));
  for (let index = 0; index < options.requests; index += 1) {
    if (index > 0 && index % REFILL_EVERY === 0) await refill(send, world);
    // Round robin over operation × caller, so every operation is reached by both from the first requests.
    const operation = operations[Math.floor(index / 2) % operations.length];
    const [request] = fc.sample(
      fc.noBias(fc.integer({ min: 0, max: 99 })).chain((roll) => {
        const caller: CallerName =
          roll < ANONYMOUS_PERCENT ? 'anonymous' : index % 2 === 0 ? 'admin' : 'customer';
        const intent = (roll * 7) % 100 < INVALID_PERCENT ? 'invalid' : 'valid';
        return factory.request(operation, caller, intent);
      }),
      { seed: options.seed + index * 7919, numRuns: 1 },
    );
    const context = { orderTotal: orderTotal(world, request) };
    const res = await send(request.caller, request, request.pathIds);
    record(result, byId.get(request.operationId) as Operation, request, res, judge, context);
  }
  for (const failure of result.failures) failure.expected = knownDefect(failure);
  return result;
}

function record(
  result: CampaignResult,
  operation: Operation,
  request: FuzzRequest,
  res: LightMyRequestResponse,
  judge: ResponseJudge,
  context: RequestContext,
): void {
  result.sent += 1;
  if (request.refusedByDocument) result.invalid += 1;
  else result.valid += 1;
  const coverage = (result.coverage[operation.operationId] ??= { admin: 0, customer: 0, anonymous: 0 });
  coverage[request.caller] += 1;
  const status = String(res.statusCode);
  result.statuses[status] = (result.statuses[status] ?? 0) + 1;
  if (res.statusCode < 300) {
    result.successes[operation.operationId] = (result.successes[operation.operationId] ?? 0) + 1;
  }
  result.failures.push(...judge.judge(operation, request, res, context));
}

/**
 * What an order would total with the lines a request carries (`items` of a create, replace or batch, or
 * one line), from the prices and order totals seen so far: a batch of single-line orders counts its
 * largest line, a request on an order adds what the order held.
 */
function orderTotal(world: World, request: FuzzRequest): number | undefined {
  if (typeof request.payload !== 'string') return undefined;
  let body: unknown;
  try {
    body = JSON.parse(request.payload);
  } catch {
    return undefined;
  }
  if (!isObject(body)) return undefined;
  const lines = (Array.isArray(body.items) ? body.items : [body]).filter(isObject);
  const amounts = lines.map((line) =>
    typeof line.productId === 'string' && typeof line.quantity === 'number'
      ? (world.priceOf(line.productId) ?? 0) * line.quantity
      : 0,
  );
  if (amounts.length === 0) return undefined;
  if (request.operationId === 'batchCreateOrders') return Math.max(...amounts);
  const held =
    request.operationId === 'updateOrder' ? 0 : (world.totalOf(request.pathIds.orderId ?? '') ?? 0);
  return held + amounts.reduce((sum, amount) => sum + amount, 0);
}

type Send = (
  caller: CallerName,
  request: Pick<FuzzRequest, 'method' | 'url' | 'headers' | 'payload'>,
  pathIds?: Record<string, string>,
) => Promise<LightMyRequestResponse>;

const json = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => ({
  method,
  url,
  headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
  payload: body === undefined ? undefined : JSON.stringify(body),
});

const withKey = () => ({ 'idempotency-key': randomUUID() });

/**
 * Real resources for every path the document has, created through the API (so their ids are harvested
 * like any other): products in each status and at the price bound, a profile, an address, orders in each
 * state with lines and an attachment, an avatar, a finished report and export.
 */
async function seedWorld(send: Send, customerId: string): Promise<void> {
  await send('customer', json('GET', '/api/v1/users/me'));
  await send('admin', json('GET', '/api/v1/users/me'));
  await send(
    'customer',
    json('PUT', '/api/v1/users/me', { displayName: 'Fuzz Customer', regionId: 7, segment: 'retail' }),
  );
  const products: string[] = [];
  for (const product of [
    { name: 'Fuzz mug', price: 12.5, stock: 1_000_000 },
    { name: 'Fuzz kettle', price: 1999.9, stock: 1_000_000 },
    { name: 'Fuzz relic', price: 5, stock: 10, status: 'DISCONTINUED' },
    { name: 'Fuzz sold out', price: 5, stock: 0 },
    { name: 'Fuzz gold', price: 9_999_999_999.99, stock: 1_000_000 },
  ]) {
    const res = await send('admin', json('POST', '/api/v1/products', product));
    if (res.statusCode === 201) products.push(res.json<{ productId: string }>().productId);
  }
  await send(
    'customer',
    json('POST', '/api/v1/delivery-addresses', { streetName: 'Tverskaya 1', zipCode: '125009' }, withKey()),
  );
  await send(
    'customer',
    json('PUT', '/api/v1/users/me/settings', { language: 'en', notificationsEnabled: true }),
  );
  const line = { productId: products[0], quantity: 1 };
  const orders: string[] = [];
  for (let i = 0; i < 6; i += 1) {
    const res = await send(
      'customer',
      json(
        'POST',
        '/api/v1/orders',
        { items: [line, { ...line, productId: products[1] }], note: `order ${i}` },
        withKey(),
      ),
    );
    if (res.statusCode === 201) orders.push(res.json<{ orderId: string }>().orderId);
  }
  const [confirmed, shipped, delivered, cancelled, attached] = orders;
  for (const orderId of [confirmed, shipped, delivered])
    await send('customer', json('POST', `/api/v1/orders/${orderId}/confirm`), { orderId });
  for (const orderId of [shipped, delivered]) {
    await send(
      'admin',
      json('POST', `/api/v1/orders/${orderId}/ship`, { trackingNumber: 'TRK-1', carrier: 'Fuzz Post' }),
      { orderId },
    );
  }
  await send('admin', json('POST', `/api/v1/orders/${delivered}/deliver`), { orderId: delivered });
  await send('customer', json('POST', `/api/v1/orders/${cancelled}/cancel`, { reason: 'changed my mind' }), {
    orderId: cancelled,
  });
  const form = multipartBody([
    { name: 'file', data: sampleFile('pdf', 2048), filename: 'invoice.pdf', contentType: 'application/pdf' },
    { name: 'description', data: 'The invoice' },
  ]);
  await send(
    'customer',
    {
      method: 'POST',
      url: `/api/v1/orders/${attached}/attachments`,
      headers: { 'content-type': form.contentType },
      payload: form.payload,
    },
    { orderId: attached },
  );
  const avatar = multipartBody([
    { name: 'file', data: sampleFile('png', 1024), filename: 'me.png', contentType: 'image/png' },
  ]);
  await send('customer', {
    method: 'POST',
    url: '/api/v1/users/me/avatar',
    headers: { 'content-type': avatar.contentType },
    payload: avatar.payload,
  });
  const report = await send(
    'admin',
    json('POST', '/api/v1/reports/generate', { dateFrom: '2020-01-01', dateTo: '2020-12-31' }, withKey()),
  );
  const exported = await send(
    'customer',
    json('POST', `/api/v1/customers/${customerId}/export`, { format: 'CSV' }, withKey()),
  );
  for (const [caller, started] of [
    ['admin', report],
    ['customer', exported],
  ] as const) {
    const statusUrl =
      started.statusCode === 202 ? started.json<{ statusUrl: string }>().statusUrl : undefined;
    await waitForTask(send, caller, statusUrl);
  }
}

/** Polls a task until it ends (its result id is harvested then), for at most ten seconds. */
async function waitForTask(send: Send, caller: CallerName, statusUrl: string | undefined): Promise<void> {
  if (!statusUrl) return;
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const res = await send(caller, json('GET', statusUrl));
    const status = res.statusCode === 200 ? res.json<{ status: string }>().status : 'GONE';
    if (!['PENDING', 'PROCESSING'].includes(status)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Fresh orders of the customer in the states actions start from (CREATED, CONFIRMED, SHIPPED), and one
 * of the admin's: actions, changes and deletions use them up.
 */
async function refill(send: Send, world: World): Promise<void> {
  const products = world.anyones('productId').filter((id) => (world.priceOf(id) ?? Infinity) < 1000);
  if (products.length === 0) return;
  const lines = products.slice(0, 2).map((productId) => ({ productId, quantity: 1 }));
  const create = async (caller: CallerName): Promise<string | undefined> => {
    const body = { items: lines, deliveryAddress: { streetName: 'Tverskaya 1', zipCode: '125009' } };
    const res = await send(caller, json('POST', '/api/v1/orders', body, withKey()));
    return res.statusCode === 201 ? res.json<{ orderId: string }>().orderId : undefined;
  };
  await create('admin');
  await create('customer');
  // Tasks just started, still PENDING now and then when the fuzz polls or cancels them.
  await send(
    'admin',
    json('POST', '/api/v1/reports/generate', { dateFrom: '2020-01-01', dateTo: '2020-01-31' }, withKey()),
  );
  for (const shipped of [false, true]) {
    const orderId = await create('customer');
    if (!orderId) continue;
    await send('customer', json('POST', `/api/v1/orders/${orderId}/confirm`), { orderId });
    if (shipped) {
      await send(
        'admin',
        json('POST', `/api/v1/orders/${orderId}/ship`, { trackingNumber: 'TRK-2', carrier: 'Fuzz Post' }),
        { orderId },
      );
    }
  }
}

/** The figures and the failures, as `npm run fuzz` prints them. */
export function summarize(result: CampaignResult): string {
  const unexpected = result.failures.filter((failure) => !failure.expected);
  const count = (kind: string, failures: Failure[] = result.failures) =>
    failures.filter((f) => f.kind === kind).length;
  const reached = Object.values(result.coverage).filter((c) => c.admin > 0 && c.customer > 0).length;
  const lines = [
    `fuzz: seed ${result.seed}: ${result.sent} requests sent (${result.valid} the document accepts, ${result.invalid} it refuses) ` +
      `to ${reached} of ${result.operations} operations as admin and customer`,
    `fuzz: operations answered with a success: ${Object.keys(result.successes).length} of ${result.operations}` +
      (Object.keys(result.coverage).some((id) => !result.successes[id])
        ? ` (never: ${Object.keys(result.coverage)
            .filter((id) => !result.successes[id])
            .join(', ')})`
        : ''),
    `fuzz: statuses ${Object.entries(result.statuses)
      .sort()
      .map(([status, n]) => `${status}×${n}`)
      .join(' ')}`,
    `fuzz: 5xx: ${count('server error (5xx)')}; schema mismatches: ${count('response schema mismatch')} ` +
      `(problem bodies: ${count('problem schema mismatch')}); failures: ${result.failures.length} ` +
      `(${result.failures.length - unexpected.length} of them known defects, ${unexpected.length} unexpected)`,
  ];
  for (const kind of FAILURE_KINDS) {
    const ofKind = result.failures.filter((failure) => failure.kind === kind);
    if (ofKind.length > 0)
      lines.push(`fuzz:   ${kind}: ${ofKind.length} (${count(kind, unexpected)} unexpected)`);
  }
  for (const [signature, failures] of groupBySignature(result.failures)) {
    const [example] = failures;
    lines.push(
      '',
      `${example.expected ? `KNOWN (${example.expected})` : 'FAILURE'} ×${failures.length}: ${signature}`,
      `  request:  ${example.request.method} ${example.request.url} (as ${example.caller})`,
      ...(example.request.body !== undefined ? [`            ${example.request.body.slice(0, 300)}`] : []),
      `  headers:  ${JSON.stringify(example.request.headers)}`,
      `  response: ${example.response.status} ${example.response.contentType ?? ''} ${example.response.body.slice(0, 500)}`,
      ...example.details.slice(0, 5).map((detail) => `  detail:   ${detail}`),
    );
  }
  return lines.join('\n');
}

/** Failures grouped by what failed where: kind, operation, and the mutation without its values. */
export function groupBySignature(failures: Failure[]): Map<string, Failure[]> {
  const groups = new Map<string, Failure[]>();
  for (const failure of failures) {
    const mutation = failure.mutation?.replace(/\s*\(.*\)$/, '').replace(/\[\d+\]/g, '[i]');
    const signature = `${failure.kind} — ${failure.operationId}${mutation ? ` — ${mutation}` : ''} — ${failure.response.status}`;
    groups.set(signature, [...(groups.get(signature) ?? []), failure]);
  }
  return groups;
}
