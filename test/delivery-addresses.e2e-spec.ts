import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { adminClient, customerClient } from './support/callers';
import { ApiClient, bodyWithStatus, MERGE_PATCH, withIdempotencyKey } from './support/http-client';
import { createOrder, DeliveryAddress } from './support/orders';
import { expectProblem, fieldsAndCodes, violationsByField } from './support/problem';
import { createProduct } from './support/products';
import { bootTestApp, TestApp } from './support/test-app';

const ADDRESSES = '/api/v1/delivery-addresses';

interface SavedAddress {
  addressId: string;
  streetName: string;
  zipCode: string;
  isDefault: boolean;
  createdAt: string;
}

interface Page<T> {
  content: T[];
  page: number;
  size: number;
  totalElements: number;
  totalPages: number;
}

const TVERSKAYA: DeliveryAddress = { streetName: 'Tverskaya 1', zipCode: '125009' };
const ARBAT: DeliveryAddress = { streetName: 'Arbat 10', zipCode: '119002' };
const NEVSKY: DeliveryAddress = { streetName: 'Nevsky 28', zipCode: '191186' };

async function addAddress(
  client: ApiClient,
  body: Partial<DeliveryAddress> & { isDefault?: boolean },
): Promise<SavedAddress> {
  return bodyWithStatus<SavedAddress>(await client('POST', ADDRESSES, { body }), 201, `POST ${ADDRESSES}`);
}

async function addresses(client: ApiClient): Promise<SavedAddress[]> {
  return bodyWithStatus<Page<SavedAddress>>(await client('GET', ADDRESSES), 200, `GET ${ADDRESSES}`).content;
}

/** The default of the caller's list, checked to be the only one. */
async function defaultOf(client: ApiClient): Promise<string | undefined> {
  const defaults = (await addresses(client)).filter((a) => a.isDefault);
  expect(defaults.length).toBeLessThanOrEqual(1);
  return defaults[0]?.addressId;
}

describe('delivery addresses', () => {
  let t: TestApp;
  let admin: ApiClient;

  beforeAll(async () => {
    t = await bootTestApp();
    admin = await adminClient(t);
  });
  afterAll(() => t.close());

  describe('create, read, list', () => {
    let alice: ApiClient;
    beforeAll(async () => {
      alice = await customerClient(t);
    });

    it('the first address is the default even when asked otherwise: 201, Location, the five fields', async () => {
      const res = await alice('POST', ADDRESSES, { body: { ...TVERSKAYA, isDefault: false } });
      expect(res.statusCode).toBe(201);
      const address = res.json<SavedAddress>();
      expect(address).toEqual({
        addressId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        ...TVERSKAYA,
        isDefault: true,
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
      });
      expect(res.headers.location).toBe(`${ADDRESSES}/${address.addressId}`);
      expect((await alice('GET', `${ADDRESSES}/${address.addressId}`)).json()).toEqual(address);
    });

    it('a later address is not the default unless asked; isDefault: true moves it', async () => {
      const [first] = await addresses(alice);
      const second = await addAddress(alice, ARBAT);
      expect(second.isDefault).toBe(false);
      expect(await defaultOf(alice)).toBe(first.addressId);
      const third = await addAddress(alice, { ...NEVSKY, isDefault: true });
      expect(third.isDefault).toBe(true);
      expect(await defaultOf(alice)).toBe(third.addressId);
    });

    it('lists only the caller’s addresses, newest first, as an offset page', async () => {
      const page = bodyWithStatus<Page<SavedAddress>>(await alice('GET', `${ADDRESSES}?size=2`), 200, 'list');
      expect(page).toMatchObject({ page: 1, size: 2, totalElements: 3, totalPages: 2 });
      expect(page.content.map((a) => a.streetName)).toEqual([NEVSKY.streetName, ARBAT.streetName]);
      const bob = await customerClient(t);
      expect(bodyWithStatus<Page<SavedAddress>>(await bob('GET', ADDRESSES), 200, 'list')).toEqual({
        content: [],
        page: 1,
        size: 20,
        totalElements: 0,
        totalPages: 0,
      });
    });

    it('another user’s address is 404 ADDRESS_NOT_FOUND, for an admin too, in ru and en', async () => {
      const [mine] = await addresses(alice);
      const url = `${ADDRESSES}/${mine.addressId}`;
      const bob = await customerClient(t);
      const en = expectProblem(await bob('GET', url, { lang: 'en' }), 404, 'ADDRESS_NOT_FOUND');
      const ru = expectProblem(await bob('GET', url, { lang: 'ru' }), 404, 'ADDRESS_NOT_FOUND');
      expect(en.detail).toBe(`Delivery address ${mine.addressId} does not exist.`);
      expect(ru.detail).toBe(`Адрес доставки ${mine.addressId} не существует.`);
      expectProblem(await admin('GET', url), 404, 'ADDRESS_NOT_FOUND');
      expectProblem(await bob('PUT', url, { body: ARBAT }), 404, 'ADDRESS_NOT_FOUND');
      expectProblem(
        await bob('PATCH', url, { body: { zipCode: '1' }, contentType: MERGE_PATCH }),
        404,
        'ADDRESS_NOT_FOUND',
      );
      expectProblem(await bob('DELETE', url), 404, 'ADDRESS_NOT_FOUND');
      expect((await alice('GET', url)).statusCode).toBe(200);
      expectProblem(await alice('GET', `${ADDRESSES}/${randomUUID()}`), 404, 'ADDRESS_NOT_FOUND');
      const malformed = await alice('GET', `${ADDRESSES}/not-a-uuid`);
      expect(fieldsAndCodes(violationsByField(malformed))).toEqual([
        { field: 'addressId', code: 'INVALID_FORMAT' },
      ]);
    });

    it('validates the body: every invalid, read-only and unknown field at once', async () => {
      const res = await alice('POST', ADDRESSES, {
        body: { streetName: '', zipCode: 125009, isDefault: 'yes', addressId: randomUUID(), floor: 3 },
        lang: 'en',
      });
      expectProblem(res, 400, 'VALIDATION_ERROR');
      expect(fieldsAndCodes(violationsByField(res))).toEqual([
        { field: 'addressId', code: 'READ_ONLY' },
        { field: 'floor', code: 'UNKNOWN_FIELD' },
        { field: 'isDefault', code: 'INVALID_TYPE' },
        { field: 'streetName', code: 'MIN_LENGTH' },
        { field: 'zipCode', code: 'INVALID_TYPE' },
      ]);
      const empty = await alice('POST', ADDRESSES, { body: {} });
      expect(fieldsAndCodes(violationsByField(empty))).toEqual([
        { field: 'streetName', code: 'REQUIRED' },
        { field: 'zipCode', code: 'REQUIRED' },
      ]);
    });

    it('replays a create with the same Idempotency-Key', async () => {
      const bob = await customerClient(t);
      const headers = withIdempotencyKey();
      const first = await bob('POST', ADDRESSES, { body: TVERSKAYA, headers });
      const again = await bob('POST', ADDRESSES, { body: TVERSKAYA, headers });
      expect(again.statusCode).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json()).toEqual(first.json());
      expect(await addresses(bob)).toHaveLength(1);
    });
  });

  describe('change and delete', () => {
    let carol: ApiClient;
    let tverskaya: SavedAddress;
    let arbat: SavedAddress;
    beforeAll(async () => {
      carol = await customerClient(t);
      tverskaya = await addAddress(carol, TVERSKAYA);
      arbat = await addAddress(carol, ARBAT);
    });

    it('PUT replaces street and zip code and keeps the default where it was without isDefault', async () => {
      const res = await carol('PUT', `${ADDRESSES}/${tverskaya.addressId}`, { body: NEVSKY });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ ...tverskaya, ...NEVSKY, isDefault: true });
      const missing = await carol('PUT', `${ADDRESSES}/${arbat.addressId}`, { body: { zipCode: '1' } });
      expect(fieldsAndCodes(violationsByField(missing))).toEqual([{ field: 'streetName', code: 'REQUIRED' }]);
    });

    it('the default cannot be unset, only moved: 400 DEFAULT_ADDRESS_REQUIRED on isDefault, ru and en', async () => {
      const url = `${ADDRESSES}/${tverskaya.addressId}`;
      for (const [lang, message] of [
        ['en', 'The default address stays the default until another address is made the default.'],
        ['ru', 'Адрес по умолчанию остаётся им, пока адресом по умолчанию не сделан другой адрес.'],
      ] as const) {
        const res = await carol('PUT', url, { body: { ...NEVSKY, isDefault: false }, lang });
        expectProblem(res, 400, 'VALIDATION_ERROR');
        expect(violationsByField(res)).toEqual([
          { field: 'isDefault', code: 'DEFAULT_ADDRESS_REQUIRED', message },
        ]);
      }
      const patch = await carol('PATCH', url, { body: { isDefault: false }, contentType: MERGE_PATCH });
      expect(fieldsAndCodes(violationsByField(patch))).toEqual([
        { field: 'isDefault', code: 'DEFAULT_ADDRESS_REQUIRED' },
      ]);
      expect(await defaultOf(carol)).toBe(tverskaya.addressId);
    });

    it('PATCH takes only a merge patch, changes what it names, refuses null and read-only fields', async () => {
      const url = `${ADDRESSES}/${arbat.addressId}`;
      const json = await carol('PATCH', url, { body: { zipCode: '119003' } });
      expectProblem(json, 415, 'UNSUPPORTED_MEDIA_TYPE');
      const res = await carol('PATCH', url, { body: { zipCode: '119003' }, contentType: MERGE_PATCH });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ ...arbat, zipCode: '119003' });
      const invalid = await carol('PATCH', url, {
        body: { streetName: null, createdAt: '2020-01-01T00:00:00Z' },
        contentType: MERGE_PATCH,
      });
      expect(fieldsAndCodes(violationsByField(invalid))).toEqual([
        { field: 'createdAt', code: 'READ_ONLY' },
        { field: 'streetName', code: 'REQUIRED' },
      ]);
    });

    it('PATCH isDefault: true moves the default there', async () => {
      const res = await carol('PATCH', `${ADDRESSES}/${arbat.addressId}`, {
        body: { isDefault: true },
        contentType: MERGE_PATCH,
      });
      expect(res.json()).toMatchObject({ addressId: arbat.addressId, isDefault: true });
      expect(await defaultOf(carol)).toBe(arbat.addressId);
    });

    it('deleting the default makes the newest remaining address the default; the last leaves none', async () => {
      const newest = await addAddress(carol, { streetName: 'Lenina 5', zipCode: '630000' });
      expect(await defaultOf(carol)).toBe(arbat.addressId);

      expect((await carol('DELETE', `${ADDRESSES}/${arbat.addressId}`)).statusCode).toBe(204);
      expect(await defaultOf(carol)).toBe(newest.addressId);

      // Deleting one that is not the default leaves the default alone.
      expect((await carol('DELETE', `${ADDRESSES}/${tverskaya.addressId}`)).statusCode).toBe(204);
      expect(await defaultOf(carol)).toBe(newest.addressId);

      expect((await carol('DELETE', `${ADDRESSES}/${newest.addressId}`)).statusCode).toBe(204);
      expect(await addresses(carol)).toEqual([]);
      expectProblem(await carol('GET', `${ADDRESSES}/default`), 404, 'ADDRESS_NOT_FOUND');
      expectProblem(await carol('DELETE', `${ADDRESSES}/${newest.addressId}`), 404, 'ADDRESS_NOT_FOUND');
    });
  });

  describe('exactly one default, kept by the database', () => {
    it('concurrent first addresses and moves leave exactly one default', async () => {
      const dave = await customerClient(t);
      const created = await Promise.all(
        Array.from({ length: 6 }, (_, i) => addAddress(dave, { streetName: `Street ${i}`, zipCode: `${i}` })),
      );
      expect(created.filter((a) => a.isDefault)).toHaveLength(1);
      await Promise.all(
        created.map((a) =>
          dave('PATCH', `${ADDRESSES}/${a.addressId}`, {
            body: { isDefault: true },
            contentType: MERGE_PATCH,
          }),
        ),
      );
      expect((await addresses(dave)).filter((a) => a.isDefault)).toHaveLength(1);
    });

    it('a second default of one user is refused by the partial unique index itself', async () => {
      const erin = await customerClient(t);
      const first = await addAddress(erin, TVERSKAYA);
      await addAddress(erin, ARBAT);
      const db = t.app.get(DataSource);
      await expect(
        db.query(
          'UPDATE delivery_addresses SET is_default = true WHERE address_id <> $1 AND street_name = $2',
          [first.addressId, ARBAT.streetName],
        ),
      ).rejects.toThrow(/delivery_addresses_one_default_idx/);
    });
  });

  describe('orders without a delivery address take a copy of the default one', () => {
    let frank: ApiClient;
    let frankId: string;
    let productId: string;
    beforeAll(async () => {
      frankId = randomUUID();
      frank = await customerClient(t, frankId);
      productId = (await createProduct(admin, { price: 5, stock: 100 })).productId;
    });

    it('no address: the order has none', async () => {
      expect(await createOrder(frank)).not.toHaveProperty('deliveryAddress');
    });

    it('the default is copied; a given address wins; later changes of the address leave the order alone', async () => {
      const home = await addAddress(frank, TVERSKAYA);
      await addAddress(frank, ARBAT);
      const copied = await createOrder(frank, { items: [{ productId, quantity: 1 }] });
      expect(copied.deliveryAddress).toEqual(TVERSKAYA);
      expect((await createOrder(frank, { deliveryAddress: NEVSKY })).deliveryAddress).toEqual(NEVSKY);

      await frank('PUT', `${ADDRESSES}/${home.addressId}`, { body: { streetName: 'Moved 1', zipCode: '1' } });
      const reread = await frank('GET', `/api/v1/orders/${copied.orderId}`);
      expect(reread.json().deliveryAddress).toEqual(TVERSKAYA);
    });

    it('an admin creating an order for a customer copies that customer’s default', async () => {
      const order = await createOrder(admin, { customerId: frankId });
      expect(order.deliveryAddress).toEqual({ streetName: 'Moved 1', zipCode: '1' });
    });

    it('orders created by the batch copy it too', async () => {
      const res = await frank('POST', '/api/v1/orders/batch', {
        body: { items: [{ productId, quantity: 1 }] },
        headers: withIdempotencyKey(),
      });
      const [{ orderId }] = res.json<{ results: Array<{ orderId: string }> }>().results;
      expect((await frank('GET', `/api/v1/orders/${orderId}`)).json().deliveryAddress).toEqual({
        streetName: 'Moved 1',
        zipCode: '1',
      });
    });
  });
});
