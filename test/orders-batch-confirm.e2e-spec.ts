import { randomUUID } from 'node:crypto';
import { LightMyRequestResponse } from 'fastify';
import { DataSource } from 'typeorm';
import { adminClient, customerClient } from './support/callers';
import { ApiClient, MERGE_PATCH } from './support/http-client';
import { createOrder, Order, OrderLine } from './support/orders';
import { createProduct, stockOf } from './support/products';
import { bootTestApp, TestApp } from './support/test-app';

/**
 * `POST /orders/batch/confirm` is set-based (one transaction, orders and products locked in id order,
 * stock granted in request order) but must answer every item as confirming the orders one after the other
 * in request order would: these tests pin that down, and what concurrency must not break.
 */

interface BatchResult {
  index: number;
  status: 'SUCCESS' | 'ERROR';
  orderId?: string;
  error?: { code: string; detail: string };
}

const CONFIRM = '/api/v1/orders/batch/confirm';

/** The item error of each code of the batch confirm, in each language (`unknown`: the missing order's id). */
const ITEM_ERRORS = {
  en: (unknown: string) => ({
    ORDER_EMPTY: 'The order has no items and cannot be confirmed.',
    ACCESS_DENIED: 'You are not allowed to perform this operation.',
    INVALID_ORDER_STATE: 'The order is CONFIRMED; this operation is not allowed in that status.',
    ORDER_NOT_FOUND: `Order ${unknown} does not exist.`,
    INSUFFICIENT_STOCK: 'Not enough stock for the order.',
  }),
  ru: (unknown: string) => ({
    ORDER_EMPTY: 'В заказе нет позиций, его нельзя подтвердить.',
    ACCESS_DENIED: 'У вас нет прав на эту операцию.',
    INVALID_ORDER_STATE: 'Заказ в статусе CONFIRMED; в этом статусе операция недопустима.',
    ORDER_NOT_FOUND: `Заказ ${unknown} не существует.`,
    INSUFFICIENT_STOCK: 'Недостаточно товара на складе для заказа.',
  }),
};
type ItemErrorCode = keyof ReturnType<(typeof ITEM_ERRORS)['en']>;
const itemError = (lang: 'en' | 'ru', code: ItemErrorCode, unknown: string) => ({
  code,
  detail: ITEM_ERRORS[lang](unknown)[code],
});
const codesOf = (res: LightMyRequestResponse) =>
  (res.json().results as BatchResult[]).map((r) => r.error?.code ?? r.status);

describe('batch confirm (set-based)', () => {
  let t: TestApp;
  let admin: ApiClient;
  let alice: ApiClient;
  let bob: ApiClient;

  beforeAll(async () => {
    t = await bootTestApp();
    admin = await adminClient(t);
    alice = await customerClient(t);
    bob = await customerClient(t);
  });
  afterAll(() => t.close());

  const product = async (stock: number) => (await createProduct(admin, { stock })).productId;
  const order = async (client: ApiClient, items: OrderLine[]) =>
    (await createOrder(client, { items })).orderId;
  const confirm = (client: ApiClient, orderIds: readonly string[], lang?: 'ru' | 'en') =>
    client('POST', CONFIRM, { body: { items: orderIds.map((orderId) => ({ orderId })) }, lang });
  const statusOf = async (orderId: string) => (await admin('GET', `/api/v1/orders/${orderId}`)).json().status;

  /** Sets a product's stock (orders are only created for what is in stock: lower it afterwards). */
  async function setStock(productId: string, stock: number): Promise<void> {
    const res = await admin('PATCH', `/api/v1/products/${productId}`, {
      body: { stock },
      contentType: MERGE_PATCH,
    });
    expect(res.statusCode).toBe(200);
  }

  /** Single-line orders of `client`, one per line, in line order (one `/orders/batch` call). */
  async function singleLineOrders(client: ApiClient, lines: OrderLine[]): Promise<string[]> {
    const res = await client('POST', '/api/v1/orders/batch', { body: { items: lines } });
    expect(res.json().summary.failed).toBe(0);
    return (res.json().results as BatchResult[]).map((r) => r.orderId as string);
  }

  /** Every item error code of the batch confirm in one batch, with successes between them. */
  async function mixedBatch() {
    const [lamp, cable, scarce] = [await product(50), await product(50), await product(10)];
    const twoProducts = await order(alice, [
      { productId: lamp, quantity: 2 },
      { productId: cable, quantity: 3 },
    ]);
    const sameProductTwice = await order(alice, [
      { productId: lamp, quantity: 1 },
      { productId: lamp, quantity: 4 },
    ]);
    const empty = await order(alice, []);
    const bobs = await order(bob, [{ productId: lamp, quantity: 1 }]);
    const confirmed = await order(alice, [{ productId: cable, quantity: 1 }]);
    expect((await alice('POST', `/api/v1/orders/${confirmed}/confirm`)).statusCode).toBe(200);
    const short = await order(alice, [
      { productId: cable, quantity: 1 },
      { productId: scarce, quantity: 4 },
    ]);
    const last = await order(alice, [{ productId: scarce, quantity: 3 }]);
    await setStock(scarce, 3);
    const unknown = randomUUID();
    return {
      products: { lamp, cable, scarce },
      orders: { twoProducts, sameProductTwice, empty, bobs, confirmed, short, last },
      unknown,
      request: [twoProducts, empty, bobs, sameProductTwice, confirmed, unknown, short, last],
    };
  }

  describe('item outcomes', () => {
    it('answers each item as single confirms in request order would; stock moves by exactly the successes', async () => {
      const { products, orders, unknown, request } = await mixedBatch();
      const before = {
        lamp: await stockOf(admin, products.lamp),
        cable: await stockOf(admin, products.cable),
        scarce: await stockOf(admin, products.scarce),
      };

      const res = await confirm(alice, request, 'en');
      expect(res.statusCode).toBe(200);
      const error = (index: number, code: ItemErrorCode) => ({
        index,
        status: 'ERROR',
        error: itemError('en', code, unknown),
      });
      expect(res.json()).toEqual({
        results: [
          { index: 0, status: 'SUCCESS', orderId: orders.twoProducts },
          error(1, 'ORDER_EMPTY'),
          error(2, 'ACCESS_DENIED'),
          { index: 3, status: 'SUCCESS', orderId: orders.sameProductTwice },
          error(4, 'INVALID_ORDER_STATE'),
          error(5, 'ORDER_NOT_FOUND'),
          error(6, 'INSUFFICIENT_STOCK'),
          { index: 7, status: 'SUCCESS', orderId: orders.last },
        ],
        summary: { total: 8, succeeded: 3, failed: 5 },
      });

      // The short order reserved nothing, not even the cable it could have had.
      expect(await stockOf(admin, products.lamp)).toBe(before.lamp - 2 - 5);
      expect(await stockOf(admin, products.cable)).toBe(before.cable - 3);
      expect(await stockOf(admin, products.scarce)).toBe(before.scarce - 3);
      expect(await statusOf(orders.twoProducts)).toBe('CONFIRMED');
      expect(await statusOf(orders.sameProductTwice)).toBe('CONFIRMED');
      expect(await statusOf(orders.last)).toBe('CONFIRMED');
      for (const id of [orders.empty, orders.bobs, orders.short]) expect(await statusOf(id)).toBe('CREATED');
    });

    it('words every item error in ru (the default) and en; codes stay the same', async () => {
      const { orders, unknown } = await mixedBatch();
      const failing = [orders.empty, orders.bobs, orders.confirmed, unknown, orders.short];
      const codes: ItemErrorCode[] = [
        'ORDER_EMPTY',
        'ACCESS_DENIED',
        'INVALID_ORDER_STATE',
        'ORDER_NOT_FOUND',
        'INSUFFICIENT_STOCK',
      ];
      for (const lang of ['ru', 'en'] as const) {
        // No Accept-Language: ru, the service's default.
        const res = await confirm(alice, failing, lang === 'ru' ? undefined : lang);
        expect(res.headers['content-language']).toBe(lang);
        expect((res.json().results as BatchResult[]).map((r) => r.error)).toEqual(
          codes.map((code) => itemError(lang, code, unknown)),
        );
      }
    });

    it('runs a product out at a later item: earlier ones keep their stock, a later smaller one still fits', async () => {
      const widget = await product(5);
      const ids = await singleLineOrders(alice, [
        { productId: widget, quantity: 2 },
        { productId: widget, quantity: 2 },
        { productId: widget, quantity: 2 },
        { productId: widget, quantity: 1 },
        { productId: widget, quantity: 1 },
      ]);
      const res = await confirm(alice, ids);
      expect(codesOf(res)).toEqual([
        'SUCCESS',
        'SUCCESS',
        'INSUFFICIENT_STOCK',
        'SUCCESS',
        'INSUFFICIENT_STOCK',
      ]);
      expect(await stockOf(admin, widget)).toBe(0);
      expect(await Promise.all(ids.map(statusOf))).toEqual([
        'CONFIRMED',
        'CONFIRMED',
        'CREATED',
        'CONFIRMED',
        'CREATED',
      ]);
    });

    it('an order named twice: the repeat is INVALID_ORDER_STATE after a success, the same failure after one', async () => {
      const widget = await product(2);
      const [fits, tooBig] = await singleLineOrders(alice, [
        { productId: widget, quantity: 1 },
        { productId: widget, quantity: 2 },
      ]);
      await setStock(widget, 1);
      // Ids are matched whatever their case; results name the order as the single confirm does.
      const res = await confirm(alice, [tooBig, fits, fits.toUpperCase(), tooBig]);
      expect(res.json().results).toEqual([
        expect.objectContaining({ index: 0, error: expect.objectContaining({ code: 'INSUFFICIENT_STOCK' }) }),
        { index: 1, status: 'SUCCESS', orderId: fits },
        expect.objectContaining({
          index: 2,
          error: expect.objectContaining({ code: 'INVALID_ORDER_STATE' }),
        }),
        expect.objectContaining({ index: 3, error: expect.objectContaining({ code: 'INSUFFICIENT_STOCK' }) }),
      ]);
      expect(res.json().summary).toEqual({ total: 4, succeeded: 1, failed: 3 });
      expect(await stockOf(admin, widget)).toBe(0);
    });

    it('changes the order as a single confirm does: version and ETag, updatedAt, confirmedAt, the rest kept', async () => {
      const lamp = await product(10);
      const lines = [{ productId: lamp, quantity: 2 }];
      const viaSingle = await createOrder(alice, { items: lines, note: 'same' });
      const viaBatch = await createOrder(alice, { items: lines, note: 'same' });
      const oldTag = String((await alice('GET', `/api/v1/orders/${viaBatch.orderId}`)).headers.etag);

      const single = await alice('POST', `/api/v1/orders/${viaSingle.orderId}/confirm`);
      expect(codesOf(await confirm(alice, [viaBatch.orderId]))).toEqual(['SUCCESS']);

      const read = await alice('GET', `/api/v1/orders/${viaBatch.orderId}`);
      const tagOf = (res: LightMyRequestResponse, orderId: string) =>
        String(res.headers.etag).replace(orderId, '<id>');
      expect(tagOf(read, viaBatch.orderId)).toBe(tagOf(single, viaSingle.orderId));
      expect(read.headers.etag).not.toBe(oldTag);
      // Everything but the ids and the times (which differ between two orders) is the same.
      const comparable = (order: Order) => {
        expect(order.updatedAt).toEqual(expect.any(String));
        expect(order.confirmedAt).toEqual(order.updatedAt);
        return {
          ...order,
          orderId: undefined,
          createdAt: undefined,
          updatedAt: undefined,
          confirmedAt: undefined,
          items: order.items.map((item) => ({ ...item, itemId: undefined })),
        };
      };
      expect(comparable(read.json<Order>())).toEqual(comparable(single.json<Order>()));

      // The old ETag no longer matches: a read is no 304 and a write with it is refused.
      const stale = await alice('GET', `/api/v1/orders/${viaBatch.orderId}`, {
        headers: { 'if-none-match': oldTag },
      });
      expect(stale.statusCode).toBe(200);
      const patch = await alice('PATCH', `/api/v1/orders/${viaBatch.orderId}`, {
        body: { note: 'late' },
        contentType: MERGE_PATCH,
        headers: { 'if-match': oldTag },
      });
      expect(patch.json().code).toBe('CONCURRENT_MODIFICATION');
    });
  });

  describe('under concurrency', () => {
    /** The outcome code of each order a batch named (`orderIds`, as sent), by order id. */
    const outcomesOf = (res: LightMyRequestResponse, orderIds: readonly string[]) =>
      new Map(
        (res.json().results as BatchResult[]).map((r) => [orderIds[r.index], r.error?.code ?? r.status]),
      );

    /**
     * Every product of `lineOf` (each order's one line) lost exactly what the `confirmed` orders hold, from
     * `stock` each, and never went below zero; exactly the confirmed orders are CONFIRMED.
     */
    async function expectReservedExactly(
      stock: number,
      lineOf: Map<string, OrderLine>,
      confirmed: Set<string>,
    ) {
      const products = new Set([...lineOf.values()].map((line) => line.productId));
      for (const productId of products) {
        const reserved = [...lineOf]
          .filter(([id, line]) => confirmed.has(id) && line.productId === productId)
          .reduce((sum, [, line]) => sum + line.quantity, 0);
        const left = await stockOf(admin, productId);
        expect(left).toBeGreaterThanOrEqual(0);
        expect(stock - left).toBe(reserved);
      }
      for (const id of lineOf.keys())
        expect(await statusOf(id)).toBe(confirmed.has(id) ? 'CONFIRMED' : 'CREATED');
    }

    /** Single-line orders of `client` (one `/orders/batch` call each 100) and each one's line. */
    async function ordersWithLines(client: ApiClient, lines: OrderLine[]) {
      const ids: string[] = [];
      for (let from = 0; from < lines.length; from += 100) {
        ids.push(...(await singleLineOrders(client, lines.slice(from, from + 100))));
      }
      return { ids, lineOf: new Map(ids.map((id, i) => [id, lines[i]])) };
    }

    const productLines = (products: readonly string[], count: number, offset = 0) =>
      Array.from({ length: count }, (_, i) => ({
        productId: products[(i + offset) % products.length],
        quantity: 1 + ((i + offset) % 3),
      }));

    it('two concurrent 100-item batches over the same products: no deadlock, no negative stock, exact totals', async () => {
      const products = [await product(70), await product(70), await product(70), await product(70)];
      const alices = await ordersWithLines(alice, productLines(products, 100));
      const bobs = await ordersWithLines(bob, productLines(products, 100, 1));
      const bobsReversed = [...bobs.ids].reverse();

      // Bob's batch sent by an admin, in reverse: both want every product, their orders in opposite orders.
      const [resA, resB] = await Promise.all([confirm(alice, alices.ids), confirm(admin, bobsReversed)]);
      expect([resA.statusCode, resB.statusCode]).toEqual([200, 200]);
      // 50 units of each product per batch, 70 in stock: the batch that locks first gets all it asks for, the
      // other what is left.
      for (const res of [resA, resB]) {
        expect(codesOf(res)).toContain('SUCCESS');
        expect(['SUCCESS', 'INSUFFICIENT_STOCK']).toEqual(expect.arrayContaining([...new Set(codesOf(res))]));
      }
      expect([...codesOf(resA), ...codesOf(resB)]).toContain('INSUFFICIENT_STOCK');
      const outcomes = new Map([...outcomesOf(resA, alices.ids), ...outcomesOf(resB, bobsReversed)]);
      const confirmed = new Set([...outcomes].filter(([, code]) => code === 'SUCCESS').map(([id]) => id));
      await expectReservedExactly(70, new Map([...alices.lineOf, ...bobs.lineOf]), confirmed);
    });

    it('two concurrent 100-item batches of the same owner over the same orders: each order confirmed once', async () => {
      const products = [await product(100), await product(100), await product(100)];
      const { ids, lineOf } = await ordersWithLines(alice, productLines(products, 150));
      const batchA = ids.slice(0, 100);
      const batchB = ids.slice(50).reverse();

      const [resA, resB] = await Promise.all([confirm(alice, batchA), confirm(alice, batchB)]);
      expect([resA.statusCode, resB.statusCode]).toEqual([200, 200]);
      const [a, b] = [outcomesOf(resA, batchA), outcomesOf(resB, batchB)];
      const confirmed = new Set(ids.filter((id) => a.get(id) === 'SUCCESS' || b.get(id) === 'SUCCESS'));
      for (const id of ids) {
        // Never confirmed twice; an order both batches named is, for the later one, CONFIRMED already.
        if (a.get(id) === 'SUCCESS' && b.has(id)) expect(b.get(id)).toBe('INVALID_ORDER_STATE');
        if (b.get(id) === 'SUCCESS' && a.has(id)) expect(a.get(id)).toBe('INVALID_ORDER_STATE');
      }
      await expectReservedExactly(100, lineOf, confirmed);
    });

    it('a single confirm racing a batch over the same order and products: confirmed once, stock exact', async () => {
      const products = [await product(30), await product(30)];
      const { ids, lineOf } = await ordersWithLines(alice, productLines(products, 42));
      const [batched, outsiders] = [ids.slice(0, 40), ids.slice(40)];
      const raced = [ids[0], ids[17], ids[39]];

      const [batch, ...singles] = await Promise.all([
        confirm(alice, batched),
        ...[...raced, ...outsiders].map((id) => alice('POST', `/api/v1/orders/${id}/confirm`)),
      ]);
      expect(batch.statusCode).toBe(200);
      const batchCode = outcomesOf(batch, batched);
      const singleCode = new Map(
        [...raced, ...outsiders].map((id, i) => [
          id,
          singles[i].statusCode === 200 ? 'SUCCESS' : singles[i].json().code,
        ]),
      );
      for (const id of raced) {
        // One wins (unless both ran short of stock); the loser finds the order CONFIRMED.
        const codes = [batchCode.get(id), singleCode.get(id)];
        if (codes.includes('SUCCESS')) expect(codes.sort()).toEqual(['INVALID_ORDER_STATE', 'SUCCESS']);
      }
      const confirmed = new Set(
        ids.filter((id) => batchCode.get(id) === 'SUCCESS' || singleCode.get(id) === 'SUCCESS'),
      );
      await expectReservedExactly(30, lineOf, confirmed);
    });
  });

  describe('a line committed while the confirm waits for the order', () => {
    /**
     * Another writer holds the order's lock and adds a line (as `POST /orders/{id}/items` does: line, total
     * and version in one transaction); the confirm, waiting on that lock, must then reserve stock for the
     * order as committed, new line included. Confirm single and confirm in a batch alike.
     */
    async function confirmWhileALineIsAdded(send: (orderId: string) => Promise<LightMyRequestResponse>) {
      const first = await product(10);
      const added = await product(10);
      const orderId = await order(alice, [{ productId: first, quantity: 1 }]);
      const writer = t.app.get(DataSource).createQueryRunner();
      await writer.connect();
      try {
        await writer.startTransaction();
        await writer.query('SELECT 1 FROM orders WHERE order_id = $1 FOR UPDATE', [orderId]);
        await writer.query(
          `INSERT INTO order_items (order_id, product_id, product_name, unit_price, quantity)
           SELECT $1, product_id, name, price, 2 FROM products WHERE product_id = $2`,
          [orderId, added],
        );
        await writer.query(
          `UPDATE orders SET version = version + 1, updated_at = now(), total_amount =
             (SELECT sum(unit_price * quantity) FROM order_items WHERE order_id = $1) WHERE order_id = $1`,
          [orderId],
        );
        const confirming = send(orderId);
        await waitForLockWaiter();
        await writer.commitTransaction();
        const res = await confirming;
        expect(res.statusCode).toBe(200);
      } finally {
        if (writer.isTransactionActive) await writer.rollbackTransaction();
        await writer.release();
      }
      const confirmed = (await admin('GET', `/api/v1/orders/${orderId}`)).json();
      expect(confirmed.status).toBe('CONFIRMED');
      expect(confirmed.items).toHaveLength(2);
      expect(await stockOf(admin, first)).toBe(9);
      expect(await stockOf(admin, added)).toBe(8);
    }

    /** Resolves once some statement waits for a row lock (the confirm queued behind the writer). */
    async function waitForLockWaiter(): Promise<void> {
      const db = t.app.get(DataSource);
      for (let i = 0; i < 200; i += 1) {
        const [{ waiting }] = await db.query(
          "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock'",
        );
        if (waiting > 0) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error('the confirm never waited for the order lock');
    }

    it('is reserved by a single confirm', async () => {
      await confirmWhileALineIsAdded((orderId) => alice('POST', `/api/v1/orders/${orderId}/confirm`));
    });

    it('is reserved by a batch confirm', async () => {
      await confirmWhileALineIsAdded(async (orderId) => {
        const res = await confirm(alice, [orderId]);
        expect(codesOf(res)).toEqual(['SUCCESS']);
        return res;
      });
    });
  });
});
