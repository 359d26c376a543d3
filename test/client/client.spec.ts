import {
  AbortError,
  createOrderServiceClient,
  NetworkError,
  TaskFailedError,
  TimeoutError,
  ifMatch,
  ProblemError,
  UnexpectedResponseError,
  type ClientOptions,
} from '@order-service/client';
import { until } from '../support/wait';
import { localServer, problem, type LocalServer, type Reply } from './local-server';

const ORDER_ID = '7f1c0e7e-1f2a-4c53-9d0e-2b6f1b9f4a10';
const PRODUCT_ID = '0b6f1b9f-4a10-4c53-9d0e-7f1c0e7e1f2a';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const order = { orderId: ORDER_ID, status: 'CREATED' };
const ok = (body: unknown = order, headers: Record<string, string> = {}): Reply => ({
  status: 200,
  body,
  headers,
});

/**
 * What the client sends and how it treats answers, against a local HTTP server that plays the service.
 * Retries wait 1 ms (baseDelayMs) unless a test is about the wait itself.
 */
describe('createOrderServiceClient', () => {
  let server: LocalServer;
  afterEach(() => server?.close());

  async function clientOf(replies: (index: number) => Reply, options: Partial<ClientOptions> = {}) {
    server = await localServer((_request, index) => replies(index));
    return createOrderServiceClient({
      baseUrl: server.baseUrl,
      token: 'the-token',
      retry: { baseDelayMs: 1 },
      ...options,
    });
  }
  const readOrder = (client: Awaited<ReturnType<typeof clientOf>>) =>
    client.GET('/api/v1/orders/{orderId}', { params: { path: { orderId: ORDER_ID } } });

  describe('what it sends', () => {
    it('the path with its parameters, the bearer token and Accept-Language', async () => {
      const client = await clientOf(() => ok(), { language: 'en' });
      const { data, error, response } = await readOrder(client);
      expect({ data, error, status: response.status }).toEqual({
        data: order,
        error: undefined,
        status: 200,
      });
      expect(server.received).toEqual([
        expect.objectContaining({
          method: 'GET',
          url: `/api/v1/orders/${ORDER_ID}`,
          headers: expect.objectContaining({ authorization: 'Bearer the-token', 'accept-language': 'en' }),
        }),
      ]);
    });

    it("a call's own Accept-Language wins over the client's", async () => {
      const client = await clientOf(() => ok(), { language: 'en' });
      await client.GET('/api/v1/orders/{orderId}', {
        params: { path: { orderId: ORDER_ID }, header: { 'Accept-Language': 'ru' } },
      });
      expect(server.received[0].headers['accept-language']).toBe('ru');
    });

    it('no Authorization without a token; a token function is asked before every attempt', async () => {
      const anonymous = await clientOf(() => ok(), { token: undefined });
      await readOrder(anonymous);
      expect(server.received[0].headers).not.toHaveProperty('authorization');
      await server.close();

      let issued = 0;
      const refreshing = await clientOf(
        (index) => (index === 0 ? problem(503, 'SERVICE_UNAVAILABLE') : ok()),
        {
          token: async () => `token-${++issued}`,
        },
      );
      await readOrder(refreshing);
      expect(server.received.map((r) => r.headers.authorization)).toEqual([
        'Bearer token-1',
        'Bearer token-2',
      ]);
    });

    it('a new Idempotency-Key for each call that takes one, and the same one on its retries', async () => {
      const client = await clientOf((index) => (index === 0 ? 'drop' : { status: 201, body: order }));
      const body = { items: [{ productId: PRODUCT_ID, quantity: 2 }] };
      const first = await client.POST('/api/v1/orders', { body });
      const second = await client.POST('/api/v1/orders', { body });
      expect([first.response.status, second.response.status]).toEqual([201, 201]);
      const keys = server.received.map((r) => r.headers['idempotency-key']);
      expect(keys).toHaveLength(3);
      expect(keys[0]).toMatch(UUID);
      expect(keys[1]).toBe(keys[0]); // the retry of the dropped attempt
      expect(keys[2]).toMatch(UUID);
      expect(keys[2]).not.toBe(keys[0]);
      expect(server.received.map((r) => JSON.parse(r.body))).toEqual([body, body, body]);
    });

    it("keeps the caller's own Idempotency-Key, and sends none where the operation takes none", async () => {
      const client = await clientOf(() =>
        ok({ content: [], page: 1, size: 20, totalElements: 0, totalPages: 0 }),
      );
      const key = '2d7c3f3e-8f1a-4b5c-9d6e-7f8091a2b3c4';
      await client.POST('/api/v1/orders/{orderId}/confirm', {
        params: { path: { orderId: ORDER_ID }, header: { 'Idempotency-Key': key } },
      });
      await client.POST('/api/v1/orders/search', { body: { q: 'kettle' } });
      await readOrder(client);
      expect(server.received.map((r) => r.headers['idempotency-key'])).toEqual([key, undefined, undefined]);
    });

    it('a body with a file as multipart/form-data, with the file name', async () => {
      const client = await clientOf(() => ({ status: 201, body: { attachmentId: ORDER_ID } }));
      const file = new File([new Uint8Array([1, 2, 3])], 'invoice.pdf', { type: 'application/pdf' });
      const { response } = await client.POST('/api/v1/orders/{orderId}/attachments', {
        params: { path: { orderId: ORDER_ID } },
        body: { file, description: 'the invoice' },
      });
      expect(response.status).toBe(201);
      const [received] = server.received;
      expect(received.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      expect(received.body).toContain('name="description"\r\n\r\nthe invoice');
      expect(received.body).toContain('name="file"; filename="invoice.pdf"\r\nContent-Type: application/pdf');
    });

    it("If-Match from an earlier read's ETag, and the body's media type of the operation", async () => {
      const etag = `"${ORDER_ID}.v3"`;
      const client = await clientOf(() => ok(order, { etag }));
      const read = await readOrder(client);
      await client.PATCH('/api/v1/orders/{orderId}', {
        params: { path: { orderId: ORDER_ID }, header: { ...ifMatch(read) } },
        body: { note: 'ring twice' },
      });
      expect(server.received[1].headers).toMatchObject({
        'if-match': etag,
        // The operation takes a merge patch.
        'content-type': 'application/merge-patch+json',
      });
      await server.close();

      const untagged = await clientOf(() => ok());
      expect(() => ifMatch({ response: new Response(null) })).toThrow('has no ETag');
      expect(untagged).toBeDefined();
    });
  });

  describe('answers', () => {
    it('a Problem Details answer is a ProblemError with status, code, detail, violations and traceId', async () => {
      const violations = [{ field: 'items[0].quantity', message: 'Must be at least 1.', code: 'MIN' }];
      const client = await clientOf(() => problem(400, 'VALIDATION_ERROR', { violations }));
      const { data, error, response } = await client.POST('/api/v1/orders', {
        body: { items: [{ productId: PRODUCT_ID, quantity: 0 }] },
      });
      expect(data).toBeUndefined();
      expect(response.status).toBe(400);
      expect(error).toBeInstanceOf(ProblemError);
      expect(error).toBeInstanceOf(Error);
      expect(error).toMatchObject({
        name: 'ProblemError',
        status: 400,
        code: 'VALIDATION_ERROR',
        detail: 'VALIDATION_ERROR happened.',
        violations,
        traceId: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        message: '400 VALIDATION_ERROR: VALIDATION_ERROR happened.',
        problem: expect.objectContaining({ instance: 'urn:uuid:4b0c8f9e-3d1a-4f57-8a43-0f5f3c1d2e6b' }),
      });
      expect(server.received).toHaveLength(1); // a 400 is not retried
    });

    it('violations is empty for other codes', async () => {
      const client = await clientOf(() => problem(404, 'ORDER_NOT_FOUND'));
      const { error } = await readOrder(client);
      expect(error?.violations).toEqual([]);
    });

    it('an answer that is not Problem Details rejects the call with UnexpectedResponseError', async () => {
      const client = await clientOf(() => ({
        status: 502,
        headers: { 'content-type': 'text/html' },
        body: '<h1>Bad gateway</h1>',
      }));
      const call = client.POST('/api/v1/orders/search', { body: {} });
      await expect(call).rejects.toBeInstanceOf(UnexpectedResponseError);
      await expect(call).rejects.toMatchObject({ status: 502, body: '<h1>Bad gateway</h1>' });
      expect(server.received).toHaveLength(1); // POST without a key: never retried
    });
  });

  describe('retries', () => {
    it.each([429, 502, 503, 504])('retries a safe call on %i, then answers', async (status) => {
      const client = await clientOf((index) => (index === 0 ? problem(status, 'SERVICE_UNAVAILABLE') : ok()));
      const { data } = await readOrder(client);
      expect(data).toEqual(order);
      expect(server.received).toHaveLength(2);
    });

    it('answers the last failure when the attempts are spent', async () => {
      const client = await clientOf(() => problem(503, 'SERVICE_UNAVAILABLE'), {
        retry: { attempts: 2, baseDelayMs: 1 },
      });
      const { error } = await readOrder(client);
      expect(error?.code).toBe('SERVICE_UNAVAILABLE');
      expect(server.received).toHaveLength(2);
    });

    it('waits what Retry-After asks before retrying', async () => {
      const client = await clientOf((index) =>
        index === 0 ? problem(429, 'RATE_LIMIT_EXCEEDED', {}, { 'retry-after': '1' }) : ok(),
      );
      const started = Date.now();
      const { data } = await readOrder(client);
      expect(data).toEqual(order);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    });

    it('does not wait longer than maxDelayMs: the 429 stands', async () => {
      const client = await clientOf(() => problem(429, 'RATE_LIMIT_EXCEEDED', {}, { 'retry-after': '60' }), {
        retry: { maxDelayMs: 5000 },
      });
      const { error } = await readOrder(client);
      expect(error?.code).toBe('RATE_LIMIT_EXCEEDED');
      expect(server.received).toHaveLength(1);
    });

    it('waits out IDEMPOTENCY_KEY_IN_PROGRESS with the same key', async () => {
      const client = await clientOf((index) =>
        index === 0 ? problem(409, 'IDEMPOTENCY_KEY_IN_PROGRESS') : { status: 201, body: order },
      );
      const { data } = await client.POST('/api/v1/orders', { body: { items: [] } });
      expect(data).toEqual(order);
      const [first, second] = server.received.map((r) => r.headers['idempotency-key']);
      expect(second).toBe(first);
    });

    it('does not retry another 409', async () => {
      const client = await clientOf(() => problem(409, 'INVALID_ORDER_STATE'));
      const { error } = await client.POST('/api/v1/orders/{orderId}/confirm', {
        params: { path: { orderId: ORDER_ID } },
      });
      expect(error?.code).toBe('INVALID_ORDER_STATE');
      expect(server.received).toHaveLength(1);
    });

    it('never retries a call without a key and with a method that is not idempotent', async () => {
      const client = await clientOf(() => 'drop');
      await expect(client.POST('/api/v1/orders/search', { body: {} })).rejects.toBeInstanceOf(NetworkError);
      expect(server.received).toHaveLength(1);
    });

    it("rejects with a NetworkError once the attempts are spent, with fetch's error as its cause", async () => {
      const client = await clientOf(() => 'drop', { retry: { attempts: 2, baseDelayMs: 1 } });
      const failure = await readOrder(client).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(NetworkError);
      expect(failure).toMatchObject({
        name: 'NetworkError',
        cause: expect.objectContaining({ message: 'fetch failed' }),
      });
      expect(server.received).toHaveLength(2);
    });

    it('limits each attempt to timeoutMs, retries it, then rejects with a TimeoutError', async () => {
      const client = await clientOf(() => 'hang', { timeoutMs: 100, retry: { attempts: 2, baseDelayMs: 1 } });
      const failure = await readOrder(client).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(TimeoutError);
      expect(failure).toMatchObject({ name: 'TimeoutError' });
      expect(server.received).toHaveLength(2);
    });

    it("ends at once on the caller's abort, without retrying", async () => {
      const client = await clientOf(() => 'hang');
      const controller = new AbortController();
      const call = client.GET('/api/v1/orders/{orderId}', {
        params: { path: { orderId: ORDER_ID } },
        signal: controller.signal,
      });
      await until('one request received', () => server.received.length === 1, { intervalMs: 5 });
      controller.abort();
      await expect(call).rejects.toBeInstanceOf(AbortError);
      await expect(call).rejects.toMatchObject({ name: 'AbortError' });
      expect(server.received).toHaveLength(1);
    });

    it('retry: false makes one attempt', async () => {
      const client = await clientOf(() => problem(503, 'SERVICE_UNAVAILABLE'), { retry: false });
      await readOrder(client);
      expect(server.received).toHaveLength(1);
    });
  });

  describe('orders.all', () => {
    const pageOf = (cursor: string | null) =>
      cursor === ''
        ? {
            content: [{ orderId: 'a' }, { orderId: 'b' }],
            size: 2,
            nextCursor: 'c2',
            hasNext: true,
            hasPrev: false,
          }
        : { content: [{ orderId: 'c' }], size: 2, prevCursor: 'c1', hasNext: false, hasPrev: true };

    it('walks the cursor pages of the filters, the first one with an empty cursor', async () => {
      server = await localServer((request) =>
        ok(pageOf(new URL(request.url, 'http://x').searchParams.get('cursor'))),
      );
      const client = createOrderServiceClient({ baseUrl: server.baseUrl });
      const ids: string[] = [];
      for await (const item of client.orders.all({ status: ['CONFIRMED', 'SHIPPED'], size: 2 })) {
        ids.push(item.orderId);
      }
      expect(ids).toEqual(['a', 'b', 'c']);
      expect(server.received.map((r) => r.url)).toEqual([
        '/api/v1/orders?status=CONFIRMED&status=SHIPPED&size=2&cursor=',
        '/api/v1/orders?status=CONFIRMED&status=SHIPPED&size=2&cursor=c2',
      ]);
    });

    it('fetches no page the loop does not reach', async () => {
      server = await localServer((request) =>
        ok(pageOf(new URL(request.url, 'http://x').searchParams.get('cursor'))),
      );
      const client = createOrderServiceClient({ baseUrl: server.baseUrl });
      for await (const item of client.orders.all()) {
        expect(item.orderId).toBe('a');
        break;
      }
      expect(server.received).toHaveLength(1);
    });

    it("throws the ProblemError of a page that fails, typed with the list's codes", async () => {
      const client = await clientOf((index) =>
        index === 0 ? ok(pageOf('')) : problem(400, 'VALIDATION_ERROR'),
      );
      const walk = async () => {
        for await (const _ of client.orders.all()) {
          // consumes
        }
      };
      await expect(walk()).rejects.toMatchObject({ name: 'ProblemError', code: 'VALIDATION_ERROR' });
    });
  });

  describe('tasks', () => {
    const task = (status: string, extra: Record<string, unknown> = {}) => ({
      taskId: ORDER_ID,
      type: 'SALES_REPORT',
      status,
      createdAt: '2026-11-26T10:00:00Z',
      ...extra,
    });

    it('tasks.wait polls until the task ends, waiting what Retry-After asks', async () => {
      const asked: number[] = [];
      server = await localServer((_request, index) => {
        asked.push(Date.now());
        return index < 2 ? ok(task('PROCESSING'), { 'retry-after': '1' }) : ok(task('COMPLETED'));
      });
      const client = createOrderServiceClient({ baseUrl: server.baseUrl });
      const finished = await client.tasks.wait(ORDER_ID);
      expect(finished.status).toBe('COMPLETED');
      expect(server.received.map((r) => r.url)).toEqual(Array(3).fill(`/api/v1/tasks/${ORDER_ID}`));
      expect(asked[1] - asked[0]).toBeGreaterThanOrEqual(1000);
    });

    it('generateAndWait throws a TaskFailedError with the task when it fails; an abort stops the wait', async () => {
      server = await localServer((request) =>
        request.method === 'POST'
          ? { status: 202, body: { taskId: ORDER_ID, status: 'PENDING' } }
          : ok(task('FAILED', { error: { code: 'INTERNAL_ERROR', detail: 'the report broke' } })),
      );
      const client = createOrderServiceClient({ baseUrl: server.baseUrl });
      const failed = await client.reports
        .generateAndWait({ dateFrom: '2026-01-01', dateTo: '2026-01-31' })
        .catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(TaskFailedError);
      expect(failed).toMatchObject({ name: 'TaskFailedError', task: { status: 'FAILED' } });
      expect((failed as Error).message).toContain('INTERNAL_ERROR');

      await server.close();
      server = await localServer(() => ok(task('PENDING')));
      const controller = new AbortController();
      const waiting = createOrderServiceClient({ baseUrl: server.baseUrl }).tasks.wait(ORDER_ID, {
        signal: controller.signal,
        pollIntervalMs: 5,
      });
      await until('the wait polled twice', () => server.received.length >= 2);
      controller.abort();
      await expect(waiting).rejects.toBeInstanceOf(AbortError);
    });
  });

  describe('events.all', () => {
    const event = (sequence: number) => ({
      eventId: `e${sequence}`,
      type: 'ORDER_CREATED',
      sequence,
      occurredAt: '2026-11-26T10:00:00Z',
      orderId: 'o',
      customerId: 'c',
      data: { orderId: 'o' },
    });
    const page = (content: unknown[], nextCursor: string, hasNext: boolean) => ({
      content,
      size: 2,
      nextCursor,
      hasNext,
      hasPrev: false,
    });

    it('walks the feed from the start (an empty cursor) with the filters, and stops where it ends for now', async () => {
      server = await localServer((request) => {
        const cursor = new URL(request.url, 'http://x').searchParams.get('cursor');
        return ok(cursor === '' ? page([event(1), event(2)], 's2', true) : page([event(3)], 's3', false));
      });
      const client = createOrderServiceClient({ baseUrl: server.baseUrl });
      const cursors: string[] = [];
      const sequences: number[] = [];
      for await (const item of client.events.all(
        { type: ['ORDER_CREATED', 'ORDER_UPDATED'], customerId: 'c', size: 2 },
        { onCursor: (cursor) => cursors.push(cursor) },
      )) {
        sequences.push(item.sequence);
      }
      expect(sequences).toEqual([1, 2, 3]);
      expect(cursors).toEqual(['s2', 's3']);
      expect(server.received.map((r) => r.url)).toEqual([
        '/api/v1/events?type=ORDER_CREATED&type=ORDER_UPDATED&customerId=c&size=2&cursor=',
        '/api/v1/events?type=ORDER_CREATED&type=ORDER_UPDATED&customerId=c&size=2&cursor=s2',
      ]);
    });

    it('with follow, resumes from a stored cursor and polls the end until the signal aborts', async () => {
      server = await localServer((request, index) => {
        const cursor = new URL(request.url, 'http://x').searchParams.get('cursor');
        return ok(index === 2 ? page([event(9)], 's9', false) : page([], cursor ?? 'start', false));
      });
      const client = createOrderServiceClient({ baseUrl: server.baseUrl });
      const controller = new AbortController();
      const sequences: number[] = [];
      const walk = (async () => {
        for await (const item of client.events.all(
          { cursor: 's8', follow: { intervalMs: 5 } },
          { signal: controller.signal },
        )) {
          sequences.push(item.sequence);
        }
      })();
      await until('four requests received', () => server.received.length >= 4, { intervalMs: 5 });
      controller.abort();
      await expect(walk).rejects.toBeInstanceOf(AbortError);
      expect(sequences).toEqual([9]);
      expect(server.received.slice(0, 4).map((r) => r.url)).toEqual([
        '/api/v1/events?cursor=s8',
        '/api/v1/events?cursor=s8',
        '/api/v1/events?cursor=s8',
        '/api/v1/events?cursor=s9',
      ]);
    });

    it('throws the ProblemError of a page that fails: CURSOR_EXPIRED is a VALIDATION_ERROR', async () => {
      const client = await clientOf(() => problem(400, 'VALIDATION_ERROR'));
      const walk = async () => {
        for await (const _ of client.events.all({ cursor: 'old' })) {
          // consumes
        }
      };
      await expect(walk()).rejects.toMatchObject({ name: 'ProblemError', code: 'VALIDATION_ERROR' });
    });
  });
});
