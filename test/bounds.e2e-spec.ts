import { adminClient, customerClient } from './support/callers';
import { ApiClient, MERGE_PATCH, withIdempotencyKey } from './support/http-client';
import { createOrder, ORDERS, postOrder } from './support/orders';
import { expectProblem, fieldsAndCodes, violationsOf } from './support/problem';
import { createProduct } from './support/products';
import { bootTestApp, TestApp } from './support/test-app';

/**
 * The bounds the OpenAPI document declares (the OWASP rules want every string, integer and array bounded)
 * are the ones the service enforces: the cases where declaring them changed what the service does.
 */
describe('declared bounds are enforced', () => {
  let t: TestApp;
  let admin: ApiClient;
  let customer: ApiClient;
  let productId: string;
  beforeAll(async () => {
    t = await bootTestApp();
    admin = await adminClient(t);
    customer = await customerClient(t);
    productId = (await createProduct(admin, { stock: 1_000_000 })).productId;
  });
  afterAll(() => t.close());

  it('keeps an order at 100 lines however they are added: MAX_ITEMS on items, nothing added', async () => {
    const line = { productId, quantity: 1 };
    const order = await createOrder(customer, { items: Array.from({ length: 100 }, () => line) });
    expect(order.items).toHaveLength(100);

    const one = await customer('POST', `${ORDERS}/${order.orderId}/items`, {
      body: line,
      headers: withIdempotencyKey(),
    });
    expectProblem(one, 400, 'VALIDATION_ERROR');
    expect(fieldsAndCodes(violationsOf(one))).toEqual([{ field: 'items', code: 'MAX_ITEMS' }]);

    const batch = await customer('POST', `${ORDERS}/${order.orderId}/items/batch`, {
      body: { items: [line] },
      headers: withIdempotencyKey(),
    });
    expectProblem(batch, 400, 'VALIDATION_ERROR');
    expect(fieldsAndCodes(violationsOf(batch))).toEqual([{ field: 'items', code: 'MAX_ITEMS' }]);

    const after = await customer('GET', `${ORDERS}/${order.orderId}`);
    expect(after.json().items).toHaveLength(100);
  });

  it('refuses an integer beyond its column instead of failing the statement (a 500 before)', async () => {
    const profile = await customer('PUT', '/api/v1/users/me', { body: { regionId: 3_000_000_000 } });
    expectProblem(profile, 400, 'VALIDATION_ERROR');
    expect(fieldsAndCodes(violationsOf(profile))).toEqual([{ field: 'regionId', code: 'MAX' }]);

    const search = await admin('POST', `${ORDERS}/search`, {
      body: { customer: { regionIds: [1, 3_000_000_000] } },
    });
    expectProblem(search, 400, 'VALIDATION_ERROR');
    expect(fieldsAndCodes(violationsOf(search))).toEqual([{ field: 'customer.regionIds', code: 'MAX' }]);
  });

  it('gives stock back up to the column maximum instead of failing the cancellation (a 500 before)', async () => {
    const product = await createProduct(admin, { stock: 10 });
    const order = await createOrder(customer, { items: [{ productId: product.productId, quantity: 5 }] });
    expect((await customer('POST', `${ORDERS}/${order.orderId}/confirm`)).statusCode).toBe(200);
    const raised = await admin('PATCH', `/api/v1/products/${product.productId}`, {
      body: { stock: 2_147_483_647 },
      contentType: MERGE_PATCH,
    });
    expect(raised.statusCode).toBe(200);
    const cancel = await customer('POST', `${ORDERS}/${order.orderId}/cancel`, { body: { reason: 'no' } });
    expect(cancel.statusCode).toBe(200);
    expect((await customer('GET', `/api/v1/products/${product.productId}`)).json().stock).toBe(2_147_483_647);
  });

  it('bounds the page number (deep offsets go by cursor)', async () => {
    const res = await customer('GET', `${ORDERS}?page=1000001`);
    expectProblem(res, 400, 'VALIDATION_ERROR');
    expect(fieldsAndCodes(violationsOf(res))).toEqual([{ field: 'page', code: 'MAX' }]);
    expect((await customer('GET', `${ORDERS}?page=1000000`)).statusCode).toBe(200);
  });

  it('takes no control character in one-line text, and line breaks in notes', async () => {
    const name = await admin('POST', '/api/v1/products', {
      body: { name: 'Mug\u0007', price: 1, stock: 1 },
    });
    expectProblem(name, 400, 'VALIDATION_ERROR');
    expect(fieldsAndCodes(violationsOf(name))).toEqual([{ field: 'name', code: 'INVALID_FORMAT' }]);

    const ship = await postOrder(customer, {
      note: 'Leave it\r\nat the door\tplease',
      deliveryAddress: { streetName: 'Tverskaya\n1', zipCode: '125009' },
    });
    expectProblem(ship, 400, 'VALIDATION_ERROR');
    expect(fieldsAndCodes(violationsOf(ship))).toEqual([
      { field: 'deliveryAddress.streetName', code: 'INVALID_FORMAT' },
    ]);
    const note = await postOrder(customer, { note: 'Leave it\r\nat the door\tplease' });
    expect(note.statusCode).toBe(201);
  });

  it('counts lengths in characters as the document does (U+FE0F included)', async () => {
    const hearts = '\u2764\uFE0F'.repeat(500); // 1000 code points, 500 by class-validator's count
    expect((await postOrder(customer, { note: hearts })).statusCode).toBe(201);
    const over = await postOrder(customer, { note: `${hearts}!` });
    expectProblem(over, 400, 'VALIDATION_ERROR');
    expect(fieldsAndCodes(violationsOf(over))).toEqual([{ field: 'note', code: 'MAX_LENGTH' }]);
  });

  it('refuses null for an optional field outside a merge patch, and takes it in one', async () => {
    const create = await postOrder(customer, { note: null });
    expectProblem(create, 400, 'VALIDATION_ERROR');
    expect(fieldsAndCodes(violationsOf(create))).toEqual([{ field: 'note', code: 'INVALID_TYPE' }]);

    const order = await createOrder(customer, { note: 'x' });
    const patch = await customer('PATCH', `${ORDERS}/${order.orderId}`, {
      body: { note: null },
      contentType: MERGE_PATCH,
    });
    expect(patch.statusCode).toBe(200);
    expect(patch.json().note).toBeUndefined();
  });

  it('names an unknown field of any length without echoing it whole or its control characters', async () => {
    const res = await postOrder(customer, { [`x\u0000${'y'.repeat(10_000)}`]: 1 });
    expectProblem(res, 400, 'VALIDATION_ERROR');
    const [violation] = violationsOf(res);
    expect(violation.code).toBe('UNKNOWN_FIELD');
    expect([...violation.field]).toHaveLength(300);
    expect(violation.field.startsWith('x\uFFFDyyy')).toBe(true);
  });
});
