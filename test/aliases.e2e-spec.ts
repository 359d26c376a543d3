import { randomUUID } from 'node:crypto';
import type { OpenAPIObject } from '@nestjs/swagger';
import { adminClient, customerClient } from './support/callers';
import { ApiClient, MERGE_PATCH } from './support/http-client';
import { createOrder } from './support/orders';
import { expectProblem } from './support/problem';
import { bootTestApp, TestApp } from './support/test-app';

const ADDRESSES = '/api/v1/delivery-addresses';

/**
 * Every alias of the service: the literal route wins over the parametric one, and the
 * word resolves to exactly one resource, from the caller's token (`me`) or by its selection rule (`latest`,
 * `default`), answered as the resource itself would be.
 */
describe('aliases', () => {
  let t: TestApp;
  let alice: ApiClient;
  let aliceId: string;

  beforeAll(async () => {
    t = await bootTestApp();
    aliceId = randomUUID();
    alice = await customerClient(t, aliceId);
  });
  afterAll(() => t.close());

  describe('me: the user of the bearer token', () => {
    it('GET /users/me is the caller’s profile, the same as /users/{their id}', async () => {
      const me = await alice('GET', '/api/v1/users/me');
      expect(me.statusCode).toBe(200);
      expect(me.json()).toMatchObject({ userId: aliceId, roles: ['CUSTOMER'] });
      expect((await alice('GET', `/api/v1/users/${aliceId}`)).json()).toEqual(me.json());
    });

    it('PUT /users/me changes the caller’s profile; another user’s id is 403 for a customer', async () => {
      const res = await alice('PUT', '/api/v1/users/me', { body: { displayName: 'Alice' } });
      expect(res.json()).toMatchObject({ userId: aliceId, displayName: 'Alice' });
      const other = randomUUID();
      await (
        await customerClient(t, other)
      )('GET', '/api/v1/users/me');
      expectProblem(await alice('GET', `/api/v1/users/${other}`), 403, 'ACCESS_DENIED');
      expect((await (await adminClient(t))('GET', `/api/v1/users/${aliceId}`)).json()).toMatchObject({
        displayName: 'Alice',
      });
    });

    it('GET and PUT /users/me/settings are the caller’s settings', async () => {
      await alice('PUT', '/api/v1/users/me/settings', {
        body: { language: 'en', notificationsEnabled: false },
      });
      expect((await alice('GET', '/api/v1/users/me/settings')).json()).toEqual({
        language: 'en',
        notificationsEnabled: false,
      });
      const bob = await customerClient(t);
      expect((await bob('GET', '/api/v1/users/me/settings')).json()).toEqual({
        language: 'ru',
        notificationsEnabled: true,
      });
    });

    it('exists only after users/', async () => {
      expectProblem(await alice('GET', '/api/v1/me'), 404, 'RESOURCE_NOT_FOUND');
      expectProblem(await alice('GET', '/api/v1/me/settings'), 404, 'RESOURCE_NOT_FOUND');
    });
  });

  describe('latest: the caller’s most recent order', () => {
    it('is 404 ORDER_NOT_FOUND before the first order, then the newest, with the order’s ETag', async () => {
      const carol = await customerClient(t);
      expectProblem(await carol('GET', '/api/v1/orders/latest', { lang: 'en' }), 404, 'ORDER_NOT_FOUND');
      await createOrder(carol, { note: 'first' });
      const second = await createOrder(carol, { note: 'second' });
      await createOrder(alice, { note: 'someone else’s, later' });

      const latest = await carol('GET', '/api/v1/orders/latest');
      expect(latest.statusCode).toBe(200);
      expect(latest.json()).toEqual(second);
      const byId = await carol('GET', `/api/v1/orders/${second.orderId}`);
      expect(latest.headers.etag).toBe(byId.headers.etag);
      const cached = await carol('GET', '/api/v1/orders/latest', {
        headers: { 'if-none-match': String(latest.headers.etag) },
      });
      expect(cached.statusCode).toBe(304);
    });
  });

  describe('default: the caller’s default delivery address', () => {
    it('with two addresses and a switch of the default, it follows the switch', async () => {
      const dave = await customerClient(t);
      expectProblem(await dave('GET', `${ADDRESSES}/default`, { lang: 'en' }), 404, 'ADDRESS_NOT_FOUND', {
        detail: 'You have no delivery address, so there is no default one.',
      });
      const ru = await dave('GET', `${ADDRESSES}/default`, { lang: 'ru' });
      expect(ru.json().detail).toBe('У вас нет адресов доставки, поэтому нет и адреса по умолчанию.');

      const home = (
        await dave('POST', ADDRESSES, { body: { streetName: 'Tverskaya 1', zipCode: '125009' } })
      ).json();
      const work = (
        await dave('POST', ADDRESSES, { body: { streetName: 'Arbat 10', zipCode: '119002' } })
      ).json();

      const before = await dave('GET', `${ADDRESSES}/default`);
      expect(before.statusCode).toBe(200);
      expect(before.json()).toEqual(home);

      await dave('PATCH', `${ADDRESSES}/${work.addressId}`, {
        body: { isDefault: true },
        contentType: MERGE_PATCH,
      });
      expect((await dave('GET', `${ADDRESSES}/default`)).json()).toEqual({ ...work, isDefault: true });

      // Another caller's `default` is their own.
      expectProblem(await alice('GET', `${ADDRESSES}/default`), 404, 'ADDRESS_NOT_FOUND');
    });
  });

  it('the OpenAPI document names each alias and what it stands for', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/docs/openapi.json' })).json<OpenAPIObject>();
    const described = {
      'GET /api/v1/users/me': document.paths['/api/v1/users/me']?.get,
      'PUT /api/v1/users/me': document.paths['/api/v1/users/me']?.put,
      'GET /api/v1/users/me/settings': document.paths['/api/v1/users/me/settings']?.get,
      'PUT /api/v1/users/me/settings': document.paths['/api/v1/users/me/settings']?.put,
      'GET /api/v1/orders/latest': document.paths['/api/v1/orders/latest']?.get,
      'GET /api/v1/delivery-addresses/default': document.paths['/api/v1/delivery-addresses/default']?.get,
    };
    const words = Object.fromEntries(
      Object.entries(described).map(([route, op]) => [
        route,
        /`(\w+)` is an alias/.exec(op?.description ?? '')?.[1],
      ]),
    );
    expect(words).toEqual({
      'GET /api/v1/users/me': 'me',
      'PUT /api/v1/users/me': 'me',
      'GET /api/v1/users/me/settings': 'me',
      'PUT /api/v1/users/me/settings': 'me',
      'GET /api/v1/orders/latest': 'latest',
      'GET /api/v1/delivery-addresses/default': 'default',
    });
    expect(described['GET /api/v1/delivery-addresses/default']).toMatchObject({
      operationId: 'getDefaultDeliveryAddress',
      tags: ['DeliveryAddresses'],
    });
    expect(described['GET /api/v1/users/me/settings']?.operationId).toBe('getUserSettings');
    expect(described['PUT /api/v1/users/me/settings']?.operationId).toBe('updateUserSettings');
  });
});
