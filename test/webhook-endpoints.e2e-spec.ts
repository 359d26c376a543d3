import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { adminClient, customerClient } from './support/callers';
import { ApiClient, bodyWithStatus, MERGE_PATCH, withIdempotencyKey } from './support/http-client';
import { expectProblem, fieldsAndCodes, violationsByField } from './support/problem';
import { bootTestApp, TestApp } from './support/test-app';

/**
 * Webhook endpoints over HTTP with the production destination policy (no private URLs): CRUD, the actions,
 * secrets shown only by create and rotate (and stored sealed, also in a stored idempotent answer), the
 * server-side request forgery check at create and patch, If-Match, the limit of endpoints, and admin-only
 * access. Literal public
 * addresses stand for receivers here: nothing is delivered (no event is recorded by these tests).
 */
const ENDPOINTS = '/api/v1/webhook-endpoints';
const PUBLIC_URL = 'https://93.184.216.34/hooks';
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

interface Endpoint {
  webhookEndpointId: string;
  url: string;
  eventTypes?: string[];
  description?: string;
  status: 'ENABLED' | 'DISABLED';
  disabledReason?: string;
  secret?: string;
  createdAt: string;
  updatedAt: string;
}

describe('webhook endpoints', () => {
  let t: TestApp;
  let admin: ApiClient;
  let dataSource: DataSource;
  const created: string[] = [];

  beforeAll(async () => {
    t = await bootTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'false', WEBHOOK_ALLOWED_NETWORKS: '' });
    admin = await adminClient(t);
    dataSource = t.app.get(DataSource);
  });
  afterAll(async () => {
    if (created.length > 0) {
      await dataSource.query('DELETE FROM webhook_endpoints WHERE webhook_endpoint_id = ANY ($1)', [created]);
    }
    await t.close();
  });

  async function create(
    body: Record<string, unknown>,
    headers: Record<string, string> = {},
  ): Promise<Endpoint> {
    const endpoint = bodyWithStatus<Endpoint>(
      await admin('POST', ENDPOINTS, { body, headers }),
      201,
      'create',
    );
    created.push(endpoint.webhookEndpointId);
    return endpoint;
  }

  it('create: 201 with Location, ETag and the secret; reads never show the secret', async () => {
    const res = await admin('POST', ENDPOINTS, {
      body: {
        url: PUBLIC_URL,
        eventTypes: ['ORDER_CREATED', 'ORDER_CREATED', 'TASK_FAILED'],
        description: 'ERP',
      },
    });
    expect(res.statusCode).toBe(201);
    const endpoint = res.json<Endpoint>();
    created.push(endpoint.webhookEndpointId);
    expect(endpoint).toEqual({
      webhookEndpointId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: PUBLIC_URL,
      eventTypes: ['ORDER_CREATED', 'TASK_FAILED'],
      description: 'ERP',
      status: 'ENABLED',
      secret: expect.stringMatching(SECRET),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(res.headers.location).toBe(`${ENDPOINTS}/${endpoint.webhookEndpointId}`);
    expect(res.headers.etag).toBe(`"${endpoint.webhookEndpointId}.v1"`);

    const read = await admin('GET', `${ENDPOINTS}/${endpoint.webhookEndpointId}`);
    expect(read.statusCode).toBe(200);
    const { secret, ...shown } = endpoint;
    expect(read.json()).toEqual(shown);
    expect(read.body).not.toContain(secret);
    const list = await admin('GET', `${ENDPOINTS}?size=100`);
    expect(list.body).not.toContain(secret as string);

    // At rest the secret is sealed, never the plain text.
    const [row] = await dataSource.query(
      'SELECT secret_sealed FROM webhook_endpoints WHERE webhook_endpoint_id = $1',
      [endpoint.webhookEndpointId],
    );
    expect(row.secret_sealed).toMatch(/^v1\./);
    expect(row.secret_sealed).not.toContain((secret as string).slice(6));
  });

  it('without eventTypes every type is sent; the list is an offset page, newest first', async () => {
    const first = await create({ url: `${PUBLIC_URL}/a` });
    const second = await create({ url: `${PUBLIC_URL}/b` });
    expect(first.eventTypes).toBeUndefined();
    const page = bodyWithStatus<{ content: Endpoint[]; page: number; size: number; totalElements: number }>(
      await admin('GET', `${ENDPOINTS}?page=1&size=100`),
      200,
      'list',
    );
    expect(page).toMatchObject({ page: 1, size: 100 });
    const ids = page.content.map((e) => e.webhookEndpointId);
    expect(ids.indexOf(second.webhookEndpointId)).toBeLessThan(ids.indexOf(first.webhookEndpointId));
    expect(page.content.every((e) => e.secret === undefined)).toBe(true);
  });

  it.each([
    ['a private address', 'https://10.0.0.1/hooks'],
    ['loopback', 'https://127.0.0.1/hooks'],
    ['cloud metadata (link-local)', 'https://169.254.169.254/latest'],
    ['decimal IPv4 of loopback', 'https://2130706433/'],
    ['IPv4-mapped IPv6', 'https://[::ffff:10.0.0.1]/'],
    ['localhost', 'https://localhost/hooks'],
    ['plain http', 'http://93.184.216.34/hooks'],
    ['user info', 'https://user:pass@93.184.216.34/hooks'],
  ])('create refuses %s: 400 URL_NOT_ALLOWED on url', async (_, url) => {
    const res = await admin('POST', ENDPOINTS, { body: { url } });
    expectProblem(res, 400, 'VALIDATION_ERROR');
    expect(fieldsAndCodes(violationsByField(res))).toEqual([{ field: 'url', code: 'URL_NOT_ALLOWED' }]);
  });

  it('validation: unknown types, an empty list, a long description, read-only fields', async () => {
    const res = await admin('POST', ENDPOINTS, {
      body: {
        url: PUBLIC_URL,
        eventTypes: [],
        description: 'x'.repeat(501),
        status: 'DISABLED',
        secret: 'x',
      },
    });
    expectProblem(res, 400, 'VALIDATION_ERROR');
    expect(fieldsAndCodes(violationsByField(res)).map((v) => v.field)).toEqual(
      expect.arrayContaining(['eventTypes', 'description', 'status', 'secret']),
    );
    const unknownType = await admin('POST', ENDPOINTS, {
      body: { url: PUBLIC_URL, eventTypes: ['ORDER_EATEN'] },
    });
    expectProblem(unknownType, 400, 'VALIDATION_ERROR');
  });

  it('PATCH is a merge patch of url, eventTypes, description; status is a 400 naming it', async () => {
    const endpoint = await create({ url: PUBLIC_URL, eventTypes: ['ORDER_CREATED'], description: 'old' });
    const path = `${ENDPOINTS}/${endpoint.webhookEndpointId}`;
    const patched = await admin('PATCH', path, {
      body: { eventTypes: null, description: 'new' },
      contentType: MERGE_PATCH,
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ url: PUBLIC_URL, description: 'new', status: 'ENABLED' });
    expect(patched.json<Endpoint>().eventTypes).toBeUndefined();
    expect(patched.headers.etag).toBe(`"${endpoint.webhookEndpointId}.v2"`);

    const status = await admin('PATCH', path, { body: { status: 'DISABLED' }, contentType: MERGE_PATCH });
    expectProblem(status, 400, 'VALIDATION_ERROR');
    expect(fieldsAndCodes(violationsByField(status))).toEqual([{ field: 'status', code: 'READ_ONLY' }]);

    const refused = await admin('PATCH', path, {
      body: { url: 'https://192.168.1.1/' },
      contentType: MERGE_PATCH,
    });
    expect(fieldsAndCodes(violationsByField(refused))).toEqual([{ field: 'url', code: 'URL_NOT_ALLOWED' }]);
  });

  it('If-Match: a stale version is 409 CONCURRENT_MODIFICATION, the current one passes', async () => {
    const endpoint = await create({ url: PUBLIC_URL });
    const path = `${ENDPOINTS}/${endpoint.webhookEndpointId}`;
    const v1 = `"${endpoint.webhookEndpointId}.v1"`;
    expect((await admin('POST', `${path}/disable`, { headers: { 'if-match': v1 } })).statusCode).toBe(200);
    expectProblem(
      await admin('POST', `${path}/enable`, { headers: { 'if-match': v1 } }),
      409,
      'CONCURRENT_MODIFICATION',
    );
    expectProblem(
      await admin('DELETE', path, { headers: { 'if-match': v1 } }),
      409,
      'CONCURRENT_MODIFICATION',
    );
  });

  it('disable and enable: status and reason', async () => {
    const endpoint = await create({ url: PUBLIC_URL });
    const path = `${ENDPOINTS}/${endpoint.webhookEndpointId}`;
    const disabled = await admin('POST', `${path}/disable`);
    expect(disabled.statusCode).toBe(200);
    expect(disabled.json()).toMatchObject({ status: 'DISABLED', disabledReason: 'MANUAL' });
    const enabled = await admin('POST', `${path}/enable`);
    expect(enabled.json()).toMatchObject({ status: 'ENABLED' });
    expect(enabled.json<Endpoint>().disabledReason).toBeUndefined();
  });

  it('rotate-secret: a new secret; oldSecretExpiresInSeconds within 0..86400', async () => {
    const endpoint = await create({ url: PUBLIC_URL });
    const path = `${ENDPOINTS}/${endpoint.webhookEndpointId}/rotate-secret`;
    const rotated = await admin('POST', path, { body: { oldSecretExpiresInSeconds: 60 } });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json<Endpoint>().secret).toMatch(SECRET);
    expect(rotated.json<Endpoint>().secret).not.toBe(endpoint.secret);
    const withoutBody = await admin('POST', path);
    expect(withoutBody.statusCode).toBe(200);
    const [row] = await dataSource.query(
      `SELECT previous_secret_expires_at > now() + interval '86000 seconds' AS long_overlap
         FROM webhook_endpoints WHERE webhook_endpoint_id = $1`,
      [endpoint.webhookEndpointId],
    );
    expect(row.long_overlap).toBe(true);
    const tooLong = await admin('POST', path, { body: { oldSecretExpiresInSeconds: 86_401 } });
    expect(fieldsAndCodes(violationsByField(tooLong))).toEqual([
      { field: 'oldSecretExpiresInSeconds', code: 'MAX' },
    ]);
  });

  it('create and rotate with an Idempotency-Key replay the same secret, stored sealed', async () => {
    const key = randomUUID();
    const first = await admin('POST', ENDPOINTS, {
      body: { url: PUBLIC_URL },
      headers: withIdempotencyKey(key),
    });
    const endpoint = first.json<Endpoint>();
    created.push(endpoint.webhookEndpointId);
    const replay = await admin('POST', ENDPOINTS, {
      body: { url: PUBLIC_URL },
      headers: withIdempotencyKey(key),
    });
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(first.body);
    const rows = await dataSource.query(
      'SELECT response_body, response_sealed FROM idempotency_keys WHERE idempotency_key = $1',
      [key],
    );
    expect(rows).toEqual([{ response_body: expect.stringMatching(/^v1\./), response_sealed: true }]);
    expect(rows[0].response_body).not.toContain(endpoint.secret);

    const rotateKey = randomUUID();
    const path = `${ENDPOINTS}/${endpoint.webhookEndpointId}/rotate-secret`;
    const rotated = await admin('POST', path, { headers: withIdempotencyKey(rotateKey) });
    const again = await admin('POST', path, { headers: withIdempotencyKey(rotateKey) });
    expect(again.json<Endpoint>().secret).toBe(rotated.json<Endpoint>().secret);
    await dataSource.query('DELETE FROM idempotency_keys WHERE idempotency_key = ANY ($1)', [
      [key, rotateKey],
    ]);
  });

  it('DELETE: 204, then 404 WEBHOOK_ENDPOINT_NOT_FOUND', async () => {
    const endpoint = await create({ url: PUBLIC_URL });
    const path = `${ENDPOINTS}/${endpoint.webhookEndpointId}`;
    expect((await admin('DELETE', path)).statusCode).toBe(204);
    expectProblem(await admin('GET', path), 404, 'WEBHOOK_ENDPOINT_NOT_FOUND');
    expectProblem(await admin('POST', `${path}/disable`), 404, 'WEBHOOK_ENDPOINT_NOT_FOUND');
    expectProblem(
      await admin('GET', `/api/v1/webhook-deliveries/${randomUUID()}`),
      404,
      'WEBHOOK_DELIVERY_NOT_FOUND',
    );
  });

  it('at most WEBHOOK_ENDPOINT_LIMIT endpoints, disabled ones counted; concurrent creates never pass it', async () => {
    // An app of its own whose limit leaves three places beside the endpoints that exist now.
    const [{ existing }] = await dataSource.query<Array<{ existing: number }>>(
      'SELECT count(*)::int AS existing FROM webhook_endpoints',
    );
    const limit = existing + 3;
    const limited = await bootTestApp({
      WEBHOOK_ALLOW_PRIVATE_URLS: 'false',
      WEBHOOK_ALLOWED_NETWORKS: '',
      WEBHOOK_ENDPOINT_LIMIT: String(limit),
    });
    try {
      const limitedAdmin = await adminClient(limited);
      const createThere = async (headers: Record<string, string> = {}) => {
        const res = await limitedAdmin('POST', ENDPOINTS, { body: { url: PUBLIC_URL }, headers });
        if (res.statusCode === 201) created.push(res.json<Endpoint>().webhookEndpointId);
        return res;
      };
      const disabled = bodyWithStatus<Endpoint>(await createThere(), 201, 'create');
      await limitedAdmin('POST', `${ENDPOINTS}/${disabled.webhookEndpointId}/disable`);

      // Five at once for the two places left: two are created, three refused.
      const burst = await Promise.all(Array.from({ length: 5 }, () => createThere()));
      expect(burst.map((res) => res.statusCode).sort()).toEqual([201, 201, 409, 409, 409]);
      const refused = burst.find((res) => res.statusCode === 409)!;
      expect(expectProblem(refused, 409, 'WEBHOOK_ENDPOINT_LIMIT_REACHED').detail).toContain(
        `не более ${limit}`,
      );
      expectProblem(await createThere({ 'accept-language': 'en' }), 409, 'WEBHOOK_ENDPOINT_LIMIT_REACHED', {
        detail: `At most ${limit} webhook endpoints may exist (disabled ones count): delete one before creating another.`,
      });

      // A delete frees a place.
      const removed = await limitedAdmin('DELETE', `${ENDPOINTS}/${disabled.webhookEndpointId}`);
      expect(removed.statusCode).toBe(204);
      expect((await createThere()).statusCode).toBe(201);
      expect((await createThere()).statusCode).toBe(409);
    } finally {
      await limited.close();
    }
  });

  it('a customer gets 403 ACCESS_DENIED on every webhook route', async () => {
    const customer = await customerClient(t);
    expectProblem(await customer('GET', ENDPOINTS), 403, 'ACCESS_DENIED');
    expectProblem(await customer('POST', ENDPOINTS, { body: { url: PUBLIC_URL } }), 403, 'ACCESS_DENIED');
    expectProblem(await customer('GET', '/api/v1/webhook-deliveries'), 403, 'ACCESS_DENIED');
  });
});
