import { DocumentBuilder, type SchemaObject, SwaggerModule } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { ORDER_EXPORT, orderExport } from '../src/modules/orders/domain/order-export';
import { FieldDeclaration, ORDER_FIELDS } from '../src/modules/orders/domain/order-fields';
import { responseClass } from '../src/modules/orders/http/dto/order-response.dto';
import { orderSql } from '../src/modules/orders/persistence/order-json.sql';
import { insertOrderStatement, insertOrderValues } from '../src/modules/orders/persistence/orders.repository';
import { EventRecorder } from '../src/modules/events/event-recorder.service';
import { adminClient, customerClient } from './support/callers';
import { ApiClient } from './support/http-client';
import { createOrder, ORDERS } from './support/orders';
import { createProduct } from './support/products';
import { bootTestApp, TestApp } from './support/test-app';

/**
 * The order's fields are declared once (orders/domain/order-fields.ts) and every form follows the
 * declaration: a field added to a copy of it (a gift message, before the note) appears, in its place and
 * with its bounds, in the v1 and v2 bodies PostgreSQL renders, in the model's record, in the response
 * schemas of the OpenAPI document, and in the export's columns and rows. The fixture's column is added to
 * the order's row by the statement itself, so no table changes.
 */
const GIFT_MESSAGE = {
  kind: 'text',
  column: 'gift_message',
  optional: true,
  bounds: { min: 1, max: 300 },
} as const satisfies FieldDeclaration;

/** ORDER_FIELDS with `giftMessage` declared before `note`. */
const WITH_GIFT_MESSAGE: Record<string, FieldDeclaration> = {};
for (const [name, field] of Object.entries(ORDER_FIELDS)) {
  if (name === 'note') WITH_GIFT_MESSAGE.giftMessage = GIFT_MESSAGE;
  WITH_GIFT_MESSAGE[name] = field;
}

/** `keys` with `inserted` before `before`. */
const withKeyBefore = (keys: string[], inserted: string, before: string) =>
  keys.flatMap((key) => (key === before ? [inserted, key] : [key]));

describe('a field declared once reaches every form of an order', () => {
  let t: TestApp;
  let db: DataSource;
  let customer: ApiClient;
  let orderId: string;
  let customerId: string;
  let product: { productId: string; name: string };
  const sql = orderSql(WITH_GIFT_MESSAGE);

  beforeAll(async () => {
    t = await bootTestApp();
    db = t.app.get(DataSource);
    const admin = await adminClient(t);
    customer = await customerClient(t);
    product = await createProduct(admin, { price: 12.5 });
    ({ orderId, customerId } = await createOrder(customer, {
      items: [{ productId: product.productId, quantity: 2 }],
      deliveryAddress: { streetName: 'Tverskaya 1', zipCode: '125009' },
      note: 'ring twice',
    }));
  });
  afterAll(() => t.close());

  /** `select` over the order, its row carrying `gift_message`. */
  async function selectWithGiftMessage(select: string, message: string | null): Promise<unknown> {
    const [row] = (await db.query(
      `SELECT ${select} AS value FROM (SELECT o.*, $2::text AS gift_message FROM orders o WHERE o.order_id = $1) o`,
      [orderId, message],
    )) as Array<{ value: unknown }>;
    return row.value;
  }

  it.each([
    ['v1', ORDERS],
    ['v2', '/api/v2/orders'],
  ] as const)(
    'the %s body serves it in its place, and leaves it out when it has no value',
    async (version, path) => {
      const served = (await customer('GET', `${path}/${orderId}`)).json<Record<string, unknown>>();
      const rendered = JSON.parse(
        (await selectWithGiftMessage(sql.body(version), 'wrapped')) as string,
      ) as Record<string, unknown>;
      expect(rendered).toEqual({ ...served, giftMessage: 'wrapped' });
      expect(Object.keys(rendered)).toEqual(withKeyBefore(Object.keys(served), 'giftMessage', 'note'));
      expect(JSON.parse((await selectWithGiftMessage(sql.body(version), null)) as string)).toEqual(served);
    },
  );

  it("the model's record holds it", async () => {
    const record = (await selectWithGiftMessage(sql.record(), 'wrapped')) as Record<string, unknown>;
    expect(sql.toOrder(record)).toMatchObject({ orderId, note: 'ring twice', giftMessage: 'wrapped' });
  });

  it('the v1 and v2 response schemas declare it, with its bounds, as optional', () => {
    const v1 = responseClass('GiftOrder', WITH_GIFT_MESSAGE, 'v1');
    const v2 = responseClass('GiftOrder', WITH_GIFT_MESSAGE, 'v2');
    const document = SwaggerModule.createDocument(t.app, new DocumentBuilder().build(), {
      extraModels: [v1, v2],
    });
    const schemas = document.components?.schemas as Record<string, SchemaObject>;
    for (const name of ['GiftOrderResponse', 'GiftOrderV2Response']) {
      const schema = schemas[name];
      const real = schemas[name.replace('Gift', '')];
      expect(Object.keys(schema.properties ?? {})).toEqual(
        withKeyBefore(Object.keys(real.properties ?? {}), 'giftMessage', 'note'),
      );
      expect(schema.properties?.giftMessage).toEqual({
        type: 'string',
        minLength: 1,
        maxLength: 300,
        pattern: expect.any(String),
      });
      expect(schema.required).toEqual(real.required);
    }
  });

  it('the export has its column, in its place, and each row its value as v1 serves it', async () => {
    const gift = orderExport(WITH_GIFT_MESSAGE);
    expect(gift.columns).toEqual(withKeyBefore([...ORDER_EXPORT.columns], 'giftMessage', 'note'));
    const body = JSON.parse((await selectWithGiftMessage(sql.body('v1'), 'wrapped')) as string) as Record<
      string,
      unknown
    >;
    const [row] = gift.rows(body);
    expect(row[gift.columns.indexOf('giftMessage')]).toBe('wrapped');
    expect(row.filter((_, i) => gift.columns[i] !== 'giftMessage')).toEqual(ORDER_EXPORT.rows(body)[0]);
  });

  it('a field a client sets is written by the create: read back, exported, and carried by its event', async () => {
    // The same field, settable; its column added inside a transaction that is rolled back at the end.
    const settable: Record<string, FieldDeclaration> = {
      ...WITH_GIFT_MESSAGE,
      giftMessage: { ...GIFT_MESSAGE, settable: true },
    };
    const gift = orderSql(settable);
    const runner = db.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      await runner.query('ALTER TABLE orders ADD COLUMN gift_message text');
      const event = t.app.get(EventRecorder).order('ORDER_CREATED', customerId);
      const lines = [
        { productId: product.productId, productName: product.name, unitPrice: '12.50', quantity: 1 },
      ];
      const [written] = (await runner.query(
        insertOrderStatement(gift).text,
        insertOrderValues(gift, { customerId, giftMessage: 'wrapped', note: 'ring twice' }, lines, event),
      )) as Array<{ orderId: string; json: string }>;
      expect(JSON.parse(written.json)).toMatchObject({ giftMessage: 'wrapped', note: 'ring twice' });

      const [read] = (await runner.query(
        `SELECT ${gift.body('v1')} AS json FROM orders o WHERE o.order_id = $1`,
        [written.orderId],
      )) as Array<{ json: string }>;
      const body = JSON.parse(read.json) as Record<string, unknown>;
      expect(body).toEqual(JSON.parse(written.json));
      const exported = orderExport(settable);
      expect(exported.rows(body)[0][exported.columns.indexOf('giftMessage')]).toBe('wrapped');

      const [recorded] = (await runner.query('SELECT data FROM events WHERE order_id = $1', [
        written.orderId,
      ])) as Array<{ data: Record<string, unknown> }>;
      expect(recorded.data).toEqual(body);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });
});
