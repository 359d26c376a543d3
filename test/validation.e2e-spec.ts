import type { LightMyRequestResponse } from 'fastify';
import {
  byField,
  expectProblemEnvelope,
  fieldsAndCodes,
  Problem,
  violationsByField,
} from './support/problem';
import { PROBE_PATH, ValidationProbeModule } from './support/probes/validation.probe';
import { bootTestApp, TestApp } from './support/test-app';

const ORDER_ID = '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
const VALID_ORDER = {
  items: [{ productId: ORDER_ID, quantity: 2 }],
  deliveryAddress: { streetName: 'Tverskaya 1', zipCode: '125009' },
};

/** A body with one problem of each kind, nested objects and lists included. */
const INVALID_ORDER = {
  customerId: 'not-a-uuid',
  items: [{ productId: 'x', quantity: 0 }, { quantity: '2', extra: true }, 7],
  deliveryAddress: { zipCode: '12AB' },
  note: 'far too long for ten',
  contactEmail: 'nobody',
  deliverBy: '2024-13-45',
  shipping: 'TELEPORT',
  surprise: 1,
};

const EXPECTED_VIOLATIONS = [
  { field: 'customerId', code: 'INVALID_FORMAT' },
  { field: 'items[0].productId', code: 'INVALID_FORMAT' },
  { field: 'items[0].quantity', code: 'MIN' },
  { field: 'items[1].productId', code: 'REQUIRED' },
  { field: 'items[1].quantity', code: 'INVALID_TYPE' },
  { field: 'items[1].extra', code: 'UNKNOWN_FIELD' },
  { field: 'items[2]', code: 'INVALID_TYPE' },
  { field: 'deliveryAddress.streetName', code: 'REQUIRED' },
  { field: 'deliveryAddress.zipCode', code: 'INVALID_FORMAT' },
  { field: 'note', code: 'MAX_LENGTH' },
  { field: 'contactEmail', code: 'INVALID_FORMAT' },
  { field: 'deliverBy', code: 'INVALID_FORMAT' },
  { field: 'shipping', code: 'INVALID_VALUE' },
  { field: 'surprise', code: 'UNKNOWN_FIELD' },
];

/** A 400 VALIDATION_ERROR Problem Details response, titled Bad Request. */
const expectValidationProblem = (res: LightMyRequestResponse): Problem =>
  expectProblemEnvelope(res, 400, 'VALIDATION_ERROR', { title: 'Bad Request' });

describe('request validation', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await bootTestApp({}, [ValidationProbeModule]);
  });
  afterAll(() => t.close());

  const post = (url: string, payload: string, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: `${PROBE_PATH}${url}`,
      headers: { 'content-type': 'application/json', ...headers },
      payload,
    });
  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: `${PROBE_PATH}${url}`, headers });

  describe('bodies', () => {
    it('accepts a valid body', async () => {
      const res = await post('/orders', JSON.stringify(VALID_ORDER));
      expect(res.statusCode).toBe(201);
      expect(res.json()).toEqual(VALID_ORDER);
    });

    it('reports every problem at once, with dotted paths, list indexes and a code per field', async () => {
      const res = await post('/orders', JSON.stringify(INVALID_ORDER), { 'accept-language': 'en' });
      expectValidationProblem(res);
      const violations = violationsByField(res);
      expect(fieldsAndCodes(violations)).toEqual([...EXPECTED_VIOLATIONS].sort(byField));
      const messages = Object.fromEntries(violations.map((v) => [v.field, v.message]));
      // Constraint values come from the decorators: @Min(1), @MaxLength(10), @Matches(…, { context }).
      expect(messages).toMatchObject({
        'items[0].quantity': 'The value must be at least 1.',
        'items[1].quantity': 'The value must be of type integer.',
        'items[1].productId': 'This field is required.',
        'items[2]': 'The value must be of type object.',
        note: 'The length (in characters) must be at most 10.',
        'deliveryAddress.zipCode': 'The value does not have the expected format (NNNNNN).',
        customerId: 'The value does not have the expected format (uuid).',
        surprise: 'This field is not part of the request.',
        shipping: 'The value is not allowed here.',
      });
    });

    it('localizes detail and messages but never code, title, type, field or violation code', async () => {
      const payload = JSON.stringify(INVALID_ORDER);
      const ru = await post('/orders', payload, { 'accept-language': 'ru-RU,en;q=0.8' });
      const en = await post('/orders', payload, { 'accept-language': 'en-US,ru;q=0.8' });
      const fallback = await post('/orders', payload, { 'accept-language': 'de-DE,en;q=0.8' });
      const none = await post('/orders', payload);
      for (const res of [ru, en, fallback, none]) expectValidationProblem(res);

      expect(ru.headers['content-language']).toBe('ru');
      expect(en.headers['content-language']).toBe('en');
      expect(fallback.headers['content-language']).toBe('ru');
      expect(none.headers['content-language']).toBe('ru');

      const [ruBody, enBody] = [ru.json(), en.json()];
      for (const member of ['code', 'title', 'type', 'status']) expect(ruBody[member]).toBe(enBody[member]);
      expect(ruBody.detail).not.toBe(enBody.detail);
      expect(enBody.detail).toBe('The request is invalid; see violations for each problem.');
      expect(ruBody.detail).toBe('Запрос некорректен; подробности в списке нарушений.');
      expect(none.json().detail).toBe(ruBody.detail);

      const [ruViolations, enViolations] = [violationsByField(ru), violationsByField(en)];
      expect(fieldsAndCodes(ruViolations)).toEqual(fieldsAndCodes(enViolations));
      ruViolations.forEach((violation, i) => expect(violation.message).not.toBe(enViolations[i].message));
      expect(ruViolations.find((v) => v.field === 'items[0].quantity')?.message).toBe(
        'Значение должно быть не меньше 1.',
      );
    });

    it('reports list size bounds', async () => {
      const empty = await post('/orders', JSON.stringify({ items: [] }), { 'accept-language': 'en' });
      expectValidationProblem(empty);
      expect(violationsByField(empty)).toEqual([
        { field: 'items', code: 'MIN_ITEMS', message: 'The number of items must be at least 1.' },
      ]);
      const line = { productId: ORDER_ID, quantity: 1 };
      const tooMany = await post('/orders', JSON.stringify({ items: [line, line, line, line] }));
      expect(violationsByField(tooMany)).toEqual([
        { field: 'items', code: 'MAX_ITEMS', message: 'Число элементов должно быть не больше 3.' },
      ]);
    });

    it.each(['[]', '"x"', 'null', '42'])(
      'rejects the JSON value %s where an object is expected',
      async (payload) => {
        const res = await post('/orders', payload, { 'accept-language': 'en' });
        expectValidationProblem(res);
        expect(res.json().violations).toEqual([
          { field: '', code: 'INVALID_TYPE', message: 'The value must be of type object.' },
        ]);
      },
    );

    it('requires the body: no body or an empty one is REQUIRED; {} reports each required field', async () => {
      const missing = await t.app.inject({ method: 'POST', url: `${PROBE_PATH}/orders` });
      const empty = await post('/orders', '');
      for (const res of [missing, empty]) {
        expectValidationProblem(res);
        expect(fieldsAndCodes(violationsByField(res))).toEqual([{ field: '', code: 'REQUIRED' }]);
      }
      const object = await post('/orders', '{}');
      expectValidationProblem(object);
      expect(fieldsAndCodes(violationsByField(object))).toEqual([{ field: 'items', code: 'REQUIRED' }]);
    });

    it('lets a body-less action be called with a JSON content type and no body', async () => {
      const res = await post(`/orders/${ORDER_ID}/confirm`, '');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ orderId: ORDER_ID });
    });
  });

  describe('query parameters', () => {
    it('takes a single and a repeated list parameter alike and converts numbers', async () => {
      const single = await get('/orders?status=CREATED&regionIds=7&page=2');
      expect(single.statusCode).toBe(200);
      expect(single.json()).toEqual({ status: ['CREATED'], regionIds: [7], page: 2, size: 20 });

      const repeated = await get('/orders?status=CREATED&status=CONFIRMED&regionIds=7&regionIds=8');
      expect(repeated.statusCode).toBe(200);
      expect(repeated.json()).toEqual({
        status: ['CREATED', 'CONFIRMED'],
        regionIds: [7, 8],
        page: 1,
        size: 20,
      });
    });

    it('reports every invalid and unknown parameter at once', async () => {
      const res = await get('/orders?status=CREATED,CONFIRMED&page=0&size=abc&regionIds=x&sort=createdAt', {
        'accept-language': 'en',
      });
      expectValidationProblem(res);
      expect(violationsByField(res)).toEqual([
        { field: 'page', code: 'MIN', message: 'The value must be at least 1.' },
        { field: 'regionIds', code: 'INVALID_TYPE', message: 'The value must be of type integer.' },
        { field: 'size', code: 'INVALID_TYPE', message: 'The value must be of type integer.' },
        { field: 'sort', code: 'UNKNOWN_FIELD', message: 'This field is not part of the request.' },
        // A comma-separated list is one (unknown) value, not two.
        { field: 'status', code: 'INVALID_VALUE', message: 'The value is not allowed here.' },
      ]);
    });

    it('reports an upper bound', async () => {
      const res = await get('/orders?size=101', { 'accept-language': 'en' });
      expectValidationProblem(res);
      expect(res.json().violations).toEqual([
        { field: 'size', code: 'MAX', message: 'The value must be at most 100.' },
      ]);
    });
  });

  describe('uuid path variables', () => {
    it('passes a uuid on in lower case', async () => {
      const res = await get(`/orders/${ORDER_ID.toUpperCase()}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ orderId: ORDER_ID });
    });

    it('answers a malformed id with 400 naming the path variable, in both languages', async () => {
      const en = await get('/orders/12345', { 'accept-language': 'en' });
      const ru = await get('/orders/12345', { 'accept-language': 'ru' });
      for (const res of [en, ru]) expectValidationProblem(res);
      expect(en.json().violations).toEqual([
        {
          field: 'orderId',
          code: 'INVALID_FORMAT',
          message: 'The value does not have the expected format (uuid).',
        },
      ]);
      expect(ru.json().violations).toEqual([
        { field: 'orderId', code: 'INVALID_FORMAT', message: 'Значение не соответствует формату (uuid).' },
      ]);
    });
  });
});
