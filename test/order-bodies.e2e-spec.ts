import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { toJsonOutput } from '../src/platform/http/json-output';
import { ORDER_FIELDS } from '../src/modules/orders/domain/order-fields';
import {
  ORDER_ACTIONS,
  ORDER_TRANSITIONS,
  OrderTimestampField,
} from '../src/modules/orders/domain/order-state-machine';
import { adminClient, customerClient } from './support/callers';
import { ApiClient } from './support/http-client';
import { outputFormViolations } from './support/json-output-rules';
import { ORDERS } from './support/orders';
import { createProduct } from './support/products';
import { bootTestApp, TestApp } from './support/test-app';

const ORDERS_V2 = '/api/v2/orders';

/**
 * Every order body is rendered by PostgreSQL from the declaration of the order's fields
 * (orders/persistence/order-json.sql.ts). This holds the bodies to the JSON output rules, which no Node code
 * applies to them, and each list page to the reads of its orders, byte for byte, for orders written
 * straight into the tables with every kind of value the rules treat specially (absent, empty, escaped,
 * non-ASCII, fractional, the extremes of the columns, a cut fraction of a second), in v1 and in v2.
 */
describe('order bodies: the JSON output rules, and pages that are the bytes of their reads', () => {
  let t: TestApp;
  let db: DataSource;
  let customer: ApiClient;
  let admin: ApiClient;
  const customerId = randomUUID();
  /** The orders inserted, newest first (the default sort). */
  const orderIds: string[] = [];

  const STAMP = '2026-03-04 05:06:07.999999+00';
  const columns = [
    'order_id',
    'customer_id',
    'status',
    'currency',
    'total_amount',
    'delivery_street_name',
    'delivery_zip_code',
    'note',
    'tracking_number',
    'carrier',
    'cancellation_reason',
    'refund_reason',
    'created_at',
    'updated_at',
    'confirmed_at',
    'shipped_at',
    'delivered_at',
    'cancelled_at',
    'refunded_at',
  ];
  /** The time stamp of every action of the state table, those above and any added since. */
  const actionStamps = ORDER_ACTIONS.map(
    (action) => ORDER_FIELDS[ORDER_TRANSITIONS[action].stamp as OrderTimestampField].column,
  );
  for (const stamp of actionStamps) if (!columns.includes(stamp)) columns.push(stamp);
  type Row = Partial<Record<string, string | null>>;

  async function insertOrder(row: Row, items: Array<{ name: string; price: string; quantity: number }>) {
    const orderId = randomUUID();
    const values: Row = { status: 'CREATED', currency: 'RUB', total_amount: '0', ...row };
    await db.query(
      `INSERT INTO orders (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
      columns.map((c) =>
        c === 'order_id' ? orderId : c === 'customer_id' ? customerId : (values[c] ?? null),
      ),
    );
    const product = await createProduct(admin);
    for (const item of items) {
      // One statement time for all of an order's lines: they then sort by item id, as the read does.
      await db.query(
        `INSERT INTO order_items (order_id, product_id, product_name, unit_price, quantity, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [orderId, product.productId, item.name, item.price, item.quantity, STAMP],
      );
    }
    orderIds.unshift(orderId);
  }

  beforeAll(async () => {
    t = await bootTestApp();
    db = t.app.get(DataSource);
    admin = await adminClient(t);
    customer = await customerClient(t, customerId);
    await db.query(`INSERT INTO users (user_id, roles) VALUES ($1, '{CUSTOMER}')`, [customerId]);
    const line = { name: 'Desk', price: '24.50', quantity: 1 };
    // Nothing optional: no address, note, reasons, later stamps or lines; a total of zero.
    await insertOrder({ created_at: '2026-01-01 00:00:00+00' }, []);
    // Every text the schema lets be empty is (a note cannot be): left out, and an address of two empty
    // parts is an empty object.
    await insertOrder(
      {
        created_at: '2026-01-02 00:00:00.5+00',
        delivery_street_name: '',
        delivery_zip_code: '',
        tracking_number: '',
        carrier: '',
        cancellation_reason: '',
        refund_reason: '',
      },
      [{ name: '', price: '0.01', quantity: 1 }],
    );
    // An address of which one part is empty: the empty part is left out.
    await insertOrder(
      {
        created_at: '2026-01-02 12:00:00+00',
        delivery_street_name: '',
        delivery_zip_code: '125009',
        total_amount: '7',
      },
      [{ name: 'Mug', price: '1999.9', quantity: 1 }],
    );
    // Escapes and non-ASCII text; money's extremes; lines of one instant.
    await insertOrder(
      {
        created_at: '2026-01-03 23:59:59.999999+00',
        total_amount: '9999999999.99',
        note: 'quote " backslash \\ slash / tab \t newline \n bell \u0007 unit \u001f del \u007f',
        tracking_number: 'Ёлка — 😀 \u2028 é',
        carrier: '<b>&amp;</b>',
      },
      [
        { name: 'Кресло', price: '9999999999.99', quantity: 2147483647 },
        { name: 'Lamp \\ "x"', price: '0.10', quantity: 3 },
        line,
      ],
    );
    // Every stamp set, with fractions to cut; an old year; an address.
    await insertOrder(
      {
        status: 'REFUNDED',
        ...Object.fromEntries(actionStamps.map((stamp) => [stamp, '2026-03-04 05:06:07.5+00'])),
        created_at: STAMP,
        updated_at: '2026-03-04 05:06:08.000001+00',
        confirmed_at: '0999-12-31 23:59:59.5+00',
        shipped_at: '1970-01-01 00:00:00+00',
        delivered_at: '2026-03-04 05:06:07.999+00',
        cancelled_at: '2026-03-04 05:06:07+03',
        refunded_at: '2099-12-31 23:59:59.999999+00',
        delivery_street_name: 'Nevsky "prospekt" 1',
        delivery_zip_code: '190000',
        cancellation_reason: 'changed mind',
        refund_reason: 'damaged',
        total_amount: '120.00',
      },
      [line, line, { ...line, price: '100.00' }],
    );
  });
  afterAll(() => t.close());

  /** The page `{content, page, size, totalElements, totalPages}` the reads of `ids` make, as JSON text. */
  async function pageOfReads(
    ids: string[],
    fields: { page: number; size: number; totalElements: number },
  ): Promise<string> {
    const reads: string[] = [];
    for (const id of ids) {
      const res = await customer('GET', `${ORDERS}/${id}`);
      expect(res.statusCode).toBe(200);
      reads.push(res.body);
    }
    const totalPages = Math.ceil(fields.totalElements / fields.size);
    return JSON.stringify({ content: 0, ...fields, totalPages }).replace(
      '"content":0',
      `"content":[${reads.join(',')}]`,
    );
  }

  it('GET /orders answers each order byte for byte as its read does, as JSON', async () => {
    const res = await customer('GET', `${ORDERS}?size=100`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.body)));
    expect(res.body).toBe(await pageOfReads(orderIds, { page: 1, size: 100, totalElements: 5 }));
    // The cases above are what they claim to be (the read's own rules).
    const [everyStamp, escaped, halfAddress, empty, bare] = res.json<{
      content: Array<Record<string, unknown>>;
    }>().content;
    expect(bare).not.toHaveProperty('deliveryAddress');
    expect(bare.items).toEqual([]);
    expect(bare.totalAmount).toBe(0);
    expect(empty.deliveryAddress).toEqual({});
    expect(empty).not.toHaveProperty('trackingNumber');
    expect(empty.items).toEqual([expect.not.objectContaining({ productName: expect.anything() })]);
    expect(escaped).not.toHaveProperty('deliveryAddress');
    expect(escaped.createdAt).toBe('2026-01-03T23:59:59Z');
    expect(escaped.totalAmount).toBe(9999999999.99);
    expect(everyStamp.confirmedAt).toBe('0999-12-31T23:59:59Z');
    expect(everyStamp.cancelledAt).toBe('2026-03-04T02:06:07Z');
    expect(halfAddress.deliveryAddress).toEqual({ zipCode: '125009' });
    expect(halfAddress.totalAmount).toBe(7);
    expect((halfAddress.items as Array<Record<string, unknown>>)[0].unitPrice).toBe(1999.9);
  });

  it.each([
    ['v1', ORDERS],
    ['v2', ORDERS_V2],
  ])(
    '%s bodies break none of the JSON output rules: they are the bytes the rules make of them',
    async (_v, path) => {
      for (const id of orderIds) {
        const res = await customer('GET', `${path}/${id}`);
        expect(res.statusCode).toBe(200);
        const body: unknown = JSON.parse(res.body);
        expect(outputFormViolations(body)).toEqual([]);
        expect(JSON.stringify(toJsonOutput(body))).toBe(res.body);
      }
    },
  );

  it('serves time stamps as whole-second UTC text and leaves out what has no value, nested fields too', async () => {
    const [, , halfAddress, empty] = orderIds;
    const everyStamp = (await customer('GET', `${ORDERS}/${orderIds[0]}`)).json<Record<string, unknown>>();
    expect(everyStamp).toMatchObject({
      createdAt: '2026-03-04T05:06:07Z',
      updatedAt: '2026-03-04T05:06:08Z',
      refundedAt: '2099-12-31T23:59:59Z',
    });
    const half = (await customer('GET', `${ORDERS}/${halfAddress}`)).json<Record<string, unknown>>();
    expect(half.deliveryAddress).toEqual({ zipCode: '125009' });
    const emptyBody = (await customer('GET', `${ORDERS}/${empty}`)).body;
    expect(emptyBody).not.toMatch(/trackingNumber|carrier|streetName|productName|null|""/);
  });

  it('v2 replaces totalAmount with total and unit prices with money, keeping every other field', async () => {
    for (const id of orderIds) {
      const v1 = (await customer('GET', `${ORDERS}/${id}`)).json<Record<string, unknown>>();
      const v2res = await customer('GET', `${ORDERS_V2}/${id}`);
      expect(v2res.statusCode).toBe(200);
      const v2 = v2res.json<Record<string, unknown>>();
      expect(v2).not.toHaveProperty('totalAmount');
      const { totalAmount, items, ...rest } = v1;
      const v1Items = items as Array<Record<string, unknown>>;
      expect(Object.keys(v2)).toEqual(Object.keys(v1).map((key) => (key === 'totalAmount' ? 'total' : key)));
      expect(v2).toMatchObject(rest);
      expect(Number((v2.total as { amount: string }).amount)).toBe(totalAmount);
      expect(v2.total).toEqual({ amount: expect.stringMatching(/^\d{1,10}\.\d{2}$/), currency: 'RUB' });
      expect(v2.items).toEqual(
        v1Items.map((item) => ({
          ...item,
          unitPrice: { amount: expect.stringMatching(/^\d{1,10}\.\d{2}$/), currency: 'RUB' },
        })),
      );
    }
  });

  it.each([
    ['12.50', '12.50'],
    ['0.00', '0.00'],
    ['1999.9', '1999.90'],
    ['7', '7.00'],
    ['9999999999.99', '9999999999.99'],
  ])('v2 serves the stored amount %s as %s', async (stored, served) => {
    const orderId = randomUUID();
    await db.query(`INSERT INTO orders (order_id, customer_id, total_amount) VALUES ($1, $2, $3)`, [
      orderId,
      customerId,
      stored,
    ]);
    try {
      const v2 = (await customer('GET', `${ORDERS_V2}/${orderId}`)).json<{ total: unknown }>();
      expect(v2.total).toEqual({ amount: served, currency: 'RUB' });
    } finally {
      await db.query('DELETE FROM orders WHERE order_id = $1', [orderId]);
    }
  });

  it('pages, the admin filter and POST /orders/search are the same bytes', async () => {
    const second = await customer('GET', `${ORDERS}?page=2&size=3`);
    expect(second.body).toBe(await pageOfReads(orderIds.slice(3), { page: 2, size: 3, totalElements: 5 }));

    const byCustomer = await admin('GET', `${ORDERS}?customerId=${customerId}&sort=createdAt,asc`);
    expect(byCustomer.statusCode).toBe(200);
    expect(byCustomer.body).toBe(
      await pageOfReads([...orderIds].reverse(), { page: 1, size: 20, totalElements: 5 }),
    );

    const search = await customer('POST', `${ORDERS}/search`, { body: { page: 1, size: 2 } });
    expect(search.statusCode).toBe(200);
    expect(search.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(search.body).toBe(await pageOfReads(orderIds.slice(0, 2), { page: 1, size: 2, totalElements: 5 }));
  });

  it('an empty page and a page past the end keep the page fields', async () => {
    const past = await customer('GET', `${ORDERS}?page=9&size=2`);
    expect(past.body).toBe('{"content":[],"page":9,"size":2,"totalElements":5,"totalPages":3}');
    const none = await customer('GET', `${ORDERS}?status=SHIPPED`);
    expect(none.body).toBe('{"content":[],"page":1,"size":20,"totalElements":0,"totalPages":0}');
  });

  it('sets every optional column of the order tables in some row, so the comparison covers each', async () => {
    // Columns that are not part of a body. A new column must either be set by a row above (and then be held
    // to the rules by the tests above) or be named here.
    const notInBody = new Set(['orders.creation_reference']);
    const nullable: Array<{ table_name: string; column_name: string }> = await db.query(
      `SELECT table_name, column_name FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name IN ('orders', 'order_items') AND is_nullable = 'YES'`,
    );
    expect(nullable.length).toBeGreaterThan(0);
    const unset: string[] = [];
    for (const { table_name: table, column_name: column } of nullable) {
      if (notInBody.has(`${table}.${column}`)) continue;
      const scope =
        table === 'orders'
          ? 'customer_id = $1'
          : 'order_id IN (SELECT order_id FROM orders WHERE customer_id = $1)';
      const [{ n }] = await db.query(
        `SELECT count(*)::int AS n FROM ${table} WHERE ${scope} AND ${column} IS NOT NULL AND ${column}::text <> ''`,
        [customerId],
      );
      if (n === 0) unset.push(`${table}.${column}`);
    }
    expect(unset).toEqual([]);
  });

  it('the schema refuses what no body can send: NaN or negative amounts, infinite and out-of-range instants', async () => {
    const refused = async (row: Row, item?: { price: string }) => {
      try {
        await insertOrder(row, item ? [{ name: 'x', price: item.price, quantity: 1 }] : []);
      } catch (error: unknown) {
        return (error as { driverError?: { code?: string } }).driverError?.code;
      }
      return 'accepted';
    };
    const before = orderIds.length;
    expect(await refused({ created_at: STAMP, total_amount: 'NaN' })).toBe('23514');
    expect(await refused({ created_at: STAMP, total_amount: '-1.00' })).toBe('23514');
    expect(await refused({ created_at: 'infinity' })).toBe('23514');
    expect(await refused({ created_at: STAMP, shipped_at: '-infinity' })).toBe('23514');
    expect(await refused({ created_at: STAMP, confirmed_at: '0044-03-15 12:00:00+00 BC' })).toBe('23514');
    expect(await refused({ created_at: STAMP, refunded_at: '10000-01-01 00:00:00+00' })).toBe('23514');
    expect(orderIds.length).toBe(before);
    // The line's check runs after its order is in: that order is taken out again.
    const orderId = randomUUID();
    await db.query(`INSERT INTO orders (order_id, customer_id) VALUES ($1, $2)`, [orderId, customerId]);
    const product = await createProduct(admin);
    await expect(
      db.query(
        `INSERT INTO order_items (order_id, product_id, product_name, unit_price, quantity)
         VALUES ($1, $2, 'x', 'NaN', 1)`,
        [orderId, product.productId],
      ),
    ).rejects.toMatchObject({ driverError: { code: '23514' } });
    await expect(
      db.query(`UPDATE products SET price = 'NaN' WHERE product_id = $1`, [product.productId]),
    ).rejects.toMatchObject({ driverError: { code: '23514' } });
    await db.query('DELETE FROM orders WHERE order_id = $1', [orderId]);
  });

  it.each([
    ['v1', ORDERS],
    ['v2', ORDERS_V2],
  ])('%s cursor and offset pages hold the same orders, the bytes of their reads', async (_v, path) => {
    const reads = await Promise.all(
      orderIds.map(async (id) => (await customer('GET', `${path}/${id}`)).body),
    );
    const cursor = await customer('GET', `${path}?cursor=&size=100`);
    expect(cursor.statusCode).toBe(200);
    expect(cursor.body).toBe(`{"content":[${reads.join(',')}],"size":100,"hasNext":false,"hasPrev":false}`);
    const offset = await customer('GET', `${path}?size=100`);
    expect(offset.body.startsWith(`{"content":[${reads.join(',')}],`)).toBe(true);
  });
});
