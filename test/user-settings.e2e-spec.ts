import { randomUUID } from 'node:crypto';
import { customerClient } from './support/callers';
import { ApiClient, apiClient, withIdempotencyKey } from './support/http-client';
import { createOrder } from './support/orders';
import { expectProblem, fieldsAndCodes, violationsByField } from './support/problem';
import { bootTestApp, TestApp } from './support/test-app';

const SETTINGS = '/api/v1/users/me/settings';
const unknownOrder = (id: string) => `/api/v1/orders/${id}`;

describe('user settings and the stored language', () => {
  let t: TestApp;
  let alice: ApiClient;
  let bob: ApiClient;
  let aliceId: string;

  beforeAll(async () => {
    t = await bootTestApp();
    aliceId = randomUUID();
    alice = await customerClient(t, aliceId);
    bob = await customerClient(t);
  });
  afterAll(() => t.close());

  describe('GET and PUT /api/v1/users/me/settings', () => {
    it('a user who never saved settings has the defaults', async () => {
      const res = await bob('GET', SETTINGS);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ language: 'ru', notificationsEnabled: true });
    });

    it('PUT replaces both fields and GET reads them back, for the caller only', async () => {
      const put = await alice('PUT', SETTINGS, { body: { language: 'en', notificationsEnabled: false } });
      expect(put.statusCode).toBe(200);
      expect(put.json()).toEqual({ language: 'en', notificationsEnabled: false });
      expect((await alice('GET', SETTINGS)).json()).toEqual({ language: 'en', notificationsEnabled: false });
      expect((await bob('GET', SETTINGS)).json()).toEqual({ language: 'ru', notificationsEnabled: true });
    });

    it('requires both fields and names every invalid or unknown one, in ru and en', async () => {
      const missing = await bob('PUT', SETTINGS, { body: {}, lang: 'en' });
      expectProblem(missing, 400, 'VALIDATION_ERROR');
      expect(fieldsAndCodes(violationsByField(missing))).toEqual([
        { field: 'language', code: 'REQUIRED' },
        { field: 'notificationsEnabled', code: 'REQUIRED' },
      ]);
      expect(violationsByField(missing)[0].message).toBe('This field is required.');

      const invalid = await bob('PUT', SETTINGS, {
        body: { language: 'de', notificationsEnabled: 'yes', theme: 'dark' },
        lang: 'ru',
      });
      expectProblem(invalid, 400, 'VALIDATION_ERROR');
      expect(fieldsAndCodes(violationsByField(invalid))).toEqual([
        { field: 'language', code: 'INVALID_VALUE' },
        { field: 'notificationsEnabled', code: 'INVALID_TYPE' },
        { field: 'theme', code: 'UNKNOWN_FIELD' },
      ]);
      expect(violationsByField(invalid)[2].message).toBe('Такого поля в запросе нет.');
      // Nothing was stored.
      expect((await bob('GET', SETTINGS)).json()).toEqual({ language: 'ru', notificationsEnabled: true });
    });

    it('needs a bearer token', async () => {
      expectProblem(await apiClient(t)('GET', SETTINGS), 401, 'UNAUTHORIZED');
    });
  });

  describe('the stored language decides when a request has no Accept-Language', () => {
    beforeAll(async () => {
      await alice('PUT', SETTINGS, { body: { language: 'en', notificationsEnabled: true } });
    });

    it('problem details follow the stored language, with a matching Content-Language', async () => {
      const id = randomUUID();
      const res = await alice('GET', unknownOrder(id));
      expect(expectProblem(res, 404, 'ORDER_NOT_FOUND').detail).toBe(`Order ${id} does not exist.`);
      expect(res.headers['content-language']).toBe('en');
    });

    it('Accept-Language still wins, and an unknown one gives ru', async () => {
      const id = randomUUID();
      const ru = await alice('GET', unknownOrder(id), { lang: 'ru' });
      expect(ru.json().detail).toBe(`Заказ ${id} не существует.`);
      expect(ru.headers['content-language']).toBe('ru');
      const unknown = await alice('GET', unknownOrder(id), { headers: { 'accept-language': 'de-DE' } });
      expect(unknown.headers['content-language']).toBe('ru');
    });

    it('without a stored language it is ru', async () => {
      const id = randomUUID();
      const res = await bob('GET', unknownOrder(id));
      expect(res.json().detail).toBe(`Заказ ${id} не существует.`);
      expect(res.headers['content-language']).toBe('ru');
    });

    it('validation messages and batch item details follow it too', async () => {
      const invalid = await alice('PUT', SETTINGS, { body: { language: 'fr', notificationsEnabled: true } });
      expect(invalid.headers['content-language']).toBe('en');
      expect(invalid.json()).toMatchObject({
        detail: 'The request is invalid; see violations for each problem.',
        violations: [{ field: 'language', message: 'The value is not allowed here.' }],
      });

      const missing = randomUUID();
      const batch = await alice('POST', '/api/v1/orders/batch', {
        body: { items: [{ productId: missing, quantity: 1 }] },
        headers: withIdempotencyKey(),
      });
      expect(batch.statusCode).toBe(200);
      expect(batch.headers['content-language']).toBe('en');
      expect(batch.json().results[0].error).toEqual({
        code: 'PRODUCT_NOT_FOUND',
        detail: `Product ${missing} does not exist.`,
      });
    });

    it('a request whose token fails is answered in ru: it names no user', async () => {
      const res = await apiClient(t, 'Bearer not-a-token')('GET', SETTINGS);
      expectProblem(res, 401, 'UNAUTHORIZED');
      expect(res.headers['content-language']).toBe('ru');
    });
  });

  describe('with two replicas', () => {
    let replica: TestApp;
    let aliceOnReplica: ApiClient;
    beforeAll(async () => {
      // A second instance on the same database, started after the legacy endpoint's sunset.
      replica = await bootTestApp({ LEGACY_STATUS_SUNSET: '2020-01-01T00:00:00Z' });
      aliceOnReplica = await customerClient(replica, aliceId);
    });
    afterAll(() => replica.close());

    it('a PUT on one replica decides the language on the other at once', async () => {
      const id = randomUUID();
      await alice('PUT', SETTINGS, { body: { language: 'en', notificationsEnabled: true } });
      expect((await aliceOnReplica('GET', unknownOrder(id))).headers['content-language']).toBe('en');
      await alice('PUT', SETTINGS, { body: { language: 'ru', notificationsEnabled: true } });
      expect((await aliceOnReplica('GET', unknownOrder(id))).headers['content-language']).toBe('ru');
      await aliceOnReplica('PUT', SETTINGS, { body: { language: 'en', notificationsEnabled: true } });
      expect((await alice('GET', unknownOrder(id))).headers['content-language']).toBe('en');
    });

    it('answers given before authentication (410 of a removed endpoint) follow the token user', async () => {
      const order = await createOrder(alice);
      const removed = await aliceOnReplica('GET', `/api/v1/orders/${order.orderId}/status`);
      expectProblem(removed, 410, 'ENDPOINT_REMOVED', {
        detail: `This endpoint was removed; use /api/v2/orders/${order.orderId} instead.`,
      });
      expect(removed.headers['content-language']).toBe('en');
    });
  });
});
