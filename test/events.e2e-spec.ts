import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { DataSource } from 'typeorm';
import { actionEventType, EVENT_TYPES, type EventType } from '../src/modules/events/domain/event-types';
import { EventMaintenance } from '../src/modules/events/event-maintenance.service';
import { ORDER_TRANSITIONS, type OrderAction } from '../src/modules/orders/domain/order-state-machine';
import type { OrderStatus } from '../src/modules/orders/domain/order-status';
import { apiClient, ApiClient, MERGE_PATCH, withIdempotencyKey } from './support/http-client';
import { createOrder, Order, ORDERS } from './support/orders';
import { expectProblem, violationsOf } from './support/problem';
import { createProduct } from './support/products';
import { TasksProbe, TasksProbeModule } from './support/probes/tasks.probe';
import { bootTestApp, TestApp } from './support/test-app';
import { callerToken } from './support/tokens';
import { eventually } from './support/wait';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const EVENTS = '/api/v1/events';

interface Event {
  eventId: string;
  type: EventType;
  sequence: number;
  occurredAt: string;
  orderId?: string;
  taskId?: string;
  customerId?: string;
  actorId?: string;
  data: Record<string, unknown>;
}

interface FeedPage {
  content: Event[];
  size: number;
  nextCursor: string;
  hasNext: boolean;
  hasPrev: boolean;
}

/** Request fields every action may take (each action keeps those its row names). */
const ACTION_PARAMS = { reason: 'changed my mind', trackingNumber: 'TRK-1', carrier: 'DHL' };

/** The actions that lead from CREATED to `target`, shortest first, through the state table. */
function pathTo(target: OrderStatus): OrderAction[] {
  const queue: Array<{ status: OrderStatus; path: OrderAction[] }> = [{ status: 'CREATED', path: [] }];
  const seen = new Set<OrderStatus>(['CREATED']);
  while (queue.length > 0) {
    const { status, path } = queue.shift()!;
    if (status === target) return path;
    for (const [action, transition] of Object.entries(ORDER_TRANSITIONS) as Array<
      [OrderAction, (typeof ORDER_TRANSITIONS)[OrderAction]]
    >) {
      if (transition.from.includes(status) && !seen.has(transition.to)) {
        seen.add(transition.to);
        queue.push({ status: transition.to, path: [...path, action] });
      }
    }
  }
  throw new Error(`no path from CREATED to ${target}`);
}

describe('events: every change records exactly one event, in its transaction', () => {
  let t: TestApp;
  let db: DataSource;
  let admin: ApiClient;
  let adminId: string;
  let customer: ApiClient;
  let customerId: string;
  let productId: string;

  beforeAll(async () => {
    t = await bootTestApp({}, [TasksProbeModule]);
    db = t.app.get(DataSource);
    const adminToken = await callerToken(t.config, ['ADMIN']);
    adminId = adminToken.sub;
    admin = apiClient(t, adminToken.authorization);
    const customerToken = await callerToken(t.config, ['CUSTOMER']);
    customerId = customerToken.sub;
    customer = apiClient(t, customerToken.authorization);
    productId = (await createProduct(admin, { stock: 1_000_000 })).productId;
  });
  afterAll(() => t.close());

  /**
   * Every event of the feed matching `query`, following the cursors to the end, once it serves every such event
   * numbered so far (what the test's own requests wrote): the feed serves an event once its horizon has passed
   * it, normally within a second of its commit, so a read right after a write may not show it yet.
   */
  async function feed(query: string): Promise<Event[]> {
    const filter = new URLSearchParams(query);
    const [{ numbered }] = await db.query<Array<{ numbered: string }>>(
      `SELECT count(*)::text AS numbered FROM events
        WHERE sequence IS NOT NULL AND ($1::uuid IS NULL OR order_id = $1) AND ($2::uuid IS NULL OR customer_id = $2)
          AND (cardinality($3::text[]) = 0 OR type = ANY ($3))`,
      [filter.get('orderId'), filter.get('customerId'), filter.getAll('type')],
    );
    return eventually('the feed to serve every event numbered so far', async () => {
      const served = await feedPages(query);
      return served.length >= Number(numbered) ? served : undefined;
    });
  }

  async function feedPages(query: string): Promise<Event[]> {
    const events: Event[] = [];
    let cursor: string | undefined;
    for (;;) {
      const res = await admin('GET', `${EVENTS}?size=100&${query}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.statusCode).toBe(200);
      const page = res.json<FeedPage>();
      expect(page.hasPrev).toBe(false);
      expect(page.nextCursor).toEqual(expect.any(String));
      events.push(...page.content);
      if (!page.hasNext) return events;
      cursor = page.nextCursor;
    }
  }

  const orderBody = async (orderId: string) => {
    const res = await admin('GET', `${ORDERS}/${orderId}`);
    expect(res.statusCode).toBe(200);
    return res.json<Order>();
  };

  /** The events `write` recorded for the order (the feed before and after, filtered by the order). */
  async function recordedFor(orderId: string, write: () => Promise<unknown>): Promise<Event[]> {
    const before = await feed(`orderId=${orderId}`);
    await write();
    const after = await feed(`orderId=${orderId}`);
    expect(after.slice(0, before.length)).toEqual(before);
    return after.slice(before.length);
  }

  /** The one event of `type` the order must have got, `data` the order as its read serves it now. */
  async function expectOneEvent(
    orderId: string,
    type: EventType,
    actorId: string,
    write: () => Promise<LightMyRequestResponse>,
  ): Promise<Event> {
    let answer: LightMyRequestResponse | undefined;
    const events = await recordedFor(orderId, async () => (answer = await write()));
    expect(answer!.statusCode).toBeLessThan(300);
    const data = type === 'ORDER_DELETED' ? undefined : await orderBody(orderId);
    expect(events).toEqual([
      {
        eventId: expect.stringMatching(UUID),
        type,
        sequence: expect.any(Number),
        occurredAt: expect.stringMatching(TIMESTAMP),
        orderId,
        customerId,
        actorId,
        data: data ?? expect.any(Object),
      },
    ]);
    return events[0];
  }

  const newOrder = async (items = [{ productId, quantity: 1 }]) =>
    (
      await createOrder(customer, {
        items,
        deliveryAddress: { streetName: 'Main St 1', zipCode: '12345' },
      })
    ).orderId;

  const act = (client: ApiClient, orderId: string, action: OrderAction, headers?: Record<string, string>) =>
    client('POST', `${ORDERS}/${orderId}/${action}`, {
      body: Object.fromEntries(
        Object.keys(ORDER_TRANSITIONS[action].params).map((name) => [
          name,
          ACTION_PARAMS[name as keyof typeof ACTION_PARAMS],
        ]),
      ),
      headers: withIdempotencyKey(undefined, headers),
    });

  /** The write operations on orders (every one a test below covers), by operationId. */
  const WRITES = {
    createOrder: async () => {
      const before = await feed(`customerId=${customerId}&type=ORDER_CREATED`);
      const res = await customer('POST', ORDERS, {
        body: { items: [{ productId, quantity: 2 }], note: 'first' },
        headers: withIdempotencyKey(),
      });
      expect(res.statusCode).toBe(201);
      const orderId = res.json<Order>().orderId;
      const after = await feed(`customerId=${customerId}&type=ORDER_CREATED`);
      expect(after.slice(before.length)).toEqual([
        expect.objectContaining({
          type: 'ORDER_CREATED',
          orderId,
          customerId,
          actorId: customerId,
          data: await orderBody(orderId),
        }),
      ]);
    },
    updateOrder: async () => {
      const orderId = await newOrder();
      await expectOneEvent(orderId, 'ORDER_UPDATED', customerId, () =>
        customer('PUT', `${ORDERS}/${orderId}`, {
          body: { items: [{ productId, quantity: 3 }], note: 'replaced' },
          headers: withIdempotencyKey(),
        }),
      );
    },
    patchOrder: async () => {
      const orderId = await newOrder();
      await expectOneEvent(orderId, 'ORDER_UPDATED', customerId, () =>
        customer('PATCH', `${ORDERS}/${orderId}`, {
          body: { note: 'patched' },
          contentType: MERGE_PATCH,
          headers: withIdempotencyKey(),
        }),
      );
    },
    deleteOrder: async () => {
      const orderId = await newOrder();
      const asItWas = await orderBody(orderId);
      const event = await expectOneEvent(orderId, 'ORDER_DELETED', customerId, () =>
        customer('DELETE', `${ORDERS}/${orderId}`, { headers: withIdempotencyKey() }),
      );
      expect(event.data).toEqual(asItWas);
    },
    addOrderItem: async () => {
      const orderId = await newOrder();
      await expectOneEvent(orderId, 'ORDER_UPDATED', customerId, () =>
        customer('POST', `${ORDERS}/${orderId}/items`, {
          body: { productId, quantity: 1 },
          headers: withIdempotencyKey(),
        }),
      );
    },
    deleteOrderItem: async () => {
      const orderId = await newOrder([
        { productId, quantity: 1 },
        { productId: (await createProduct(admin)).productId, quantity: 1 },
      ]);
      const itemId = (await orderBody(orderId)).items[0].itemId;
      await expectOneEvent(orderId, 'ORDER_UPDATED', customerId, () =>
        customer('DELETE', `${ORDERS}/${orderId}/items/${itemId}`, { headers: withIdempotencyKey() }),
      );
    },
    batchAddOrderItems: async () => {
      const orderId = await newOrder();
      await expectOneEvent(orderId, 'ORDER_UPDATED', customerId, () =>
        customer('POST', `${ORDERS}/${orderId}/items/batch`, {
          body: {
            items: [
              { productId, quantity: 1 },
              { productId, quantity: 2 },
            ],
          },
          headers: withIdempotencyKey(),
        }),
      );
    },
    batchCreateOrders: async () => {
      const before = await feed(`customerId=${customerId}&type=ORDER_CREATED`);
      const res = await customer('POST', `${ORDERS}/batch`, {
        body: {
          items: [
            { productId, quantity: 1 },
            { productId: randomUUID(), quantity: 1 },
            { productId, quantity: 2 },
          ],
        },
        headers: withIdempotencyKey(),
      });
      expect(res.statusCode).toBe(200);
      const created = (res.json().results as Array<{ orderId?: string }>).flatMap((r) =>
        r.orderId ? [r.orderId] : [],
      );
      expect(created).toHaveLength(2);
      const after = (await feed(`customerId=${customerId}&type=ORDER_CREATED`)).slice(before.length);
      expect(after.map((e) => e.orderId).sort()).toEqual([...created].sort());
      for (const event of after) {
        expect(event).toMatchObject({ actorId: customerId, customerId });
        expect(event.data).toEqual(await orderBody(event.orderId!));
      }
    },
    batchConfirmOrders: async () => {
      const [first, second] = [await newOrder(), await newOrder()];
      const confirmed = await newOrder();
      await act(customer, confirmed, 'confirm');
      const before = await feed(`customerId=${customerId}&type=ORDER_CONFIRMED`);
      const res = await customer('POST', `${ORDERS}/batch/confirm`, {
        body: { items: [{ orderId: first }, { orderId: confirmed }, { orderId: second }] },
        headers: withIdempotencyKey(),
      });
      expect(res.statusCode).toBe(200);
      const after = (await feed(`customerId=${customerId}&type=ORDER_CONFIRMED`)).slice(before.length);
      // One per order it changed; the one already confirmed was refused and records nothing.
      expect(after.map((e) => e.orderId).sort()).toEqual([first, second].sort());
      for (const event of after) {
        expect(event).toMatchObject({ actorId: customerId, customerId });
        expect(event.data).toEqual(await orderBody(event.orderId!));
      }
    },
  };

  /** Writes under /orders that change no order: attachments record no event. */
  const WITHOUT_EVENTS = ['uploadOrderAttachment', 'deleteOrderAttachment'];

  it('the table covers every write operation on orders the API document lists, actions included', async () => {
    const document = (await admin('GET', '/docs/openapi.json')).json<{
      paths: Record<string, Record<string, { operationId: string }>>;
    }>();
    const writes = Object.entries(document.paths)
      .filter(([path]) => /^\/api\/v\d+\/orders/.test(path))
      .flatMap(([path, operations]) =>
        Object.entries(operations)
          .filter(([method]) => ['post', 'put', 'patch', 'delete'].includes(method))
          .map(([, operation]) => ({ path, operationId: operation.operationId })),
      )
      .filter(({ operationId }) => operationId !== 'searchOrders');
    const actionPaths = Object.keys(ORDER_TRANSITIONS).map((action) => `/api/v1/orders/{orderId}/${action}`);
    const covered = writes.filter(
      ({ path, operationId }) =>
        operationId in WRITES || actionPaths.includes(path) || WITHOUT_EVENTS.includes(operationId),
    );
    expect(covered).toEqual(writes);
    expect(writes.length).toBe(Object.keys(WRITES).length + actionPaths.length + WITHOUT_EVENTS.length);
  });

  it.each(Object.keys(WRITES))(
    '%s records exactly one event per changed order, data as the read serves it',
    async (operation) => {
      await WRITES[operation as keyof typeof WRITES]();
    },
  );

  it.each(Object.keys(ORDER_TRANSITIONS) as OrderAction[])(
    'the action %s records the event of the state it leads to',
    async (action) => {
      const orderId = await newOrder();
      for (const step of pathTo(ORDER_TRANSITIONS[action].from[0])) {
        expect((await act(admin, orderId, step)).statusCode).toBe(200);
      }
      await expectOneEvent(orderId, actionEventType(action), adminId, () => act(admin, orderId, action));
    },
  );

  it('a refused change and an idempotent replay record nothing', async () => {
    const orderId = await newOrder();
    const key = randomUUID();
    const headers = withIdempotencyKey(key);
    const events = await recordedFor(orderId, async () => {
      const first = await customer('POST', `${ORDERS}/${orderId}/confirm`, { headers });
      expect(first.statusCode).toBe(200);
    });
    expect(events).toHaveLength(1);
    expect(
      await recordedFor(orderId, async () => {
        // The same request again: its stored answer, no second change.
        const replay = await customer('POST', `${ORDERS}/${orderId}/confirm`, { headers });
        expect(replay.statusCode).toBe(200);
        // Refused: by the state table, by a stale If-Match, by another customer.
        expectProblem(await act(customer, orderId, 'confirm'), 409, 'INVALID_ORDER_STATE');
        expectProblem(
          await customer('PATCH', `${ORDERS}/${orderId}`, {
            body: { note: 'x' },
            contentType: MERGE_PATCH,
            headers: withIdempotencyKey(undefined, { 'if-match': '"999"' }),
          }),
          409,
          'CONCURRENT_MODIFICATION',
        );
        const stranger = apiClient(t, (await callerToken(t.config, ['CUSTOMER'])).authorization);
        expectProblem(await act(stranger, orderId, 'cancel'), 403, 'ACCESS_DENIED');
      }),
    ).toEqual([]);

    // A create replayed with its key answers the stored order and records no second creation.
    const createKey = randomUUID();
    const before = await feed(`customerId=${customerId}&type=ORDER_CREATED`);
    for (let i = 0; i < 2; i += 1) {
      const res = await customer('POST', ORDERS, {
        body: { items: [{ productId, quantity: 1 }] },
        headers: withIdempotencyKey(createKey),
      });
      expect(res.statusCode).toBe(201);
    }
    expect((await feed(`customerId=${customerId}&type=ORDER_CREATED`)).length).toBe(before.length + 1);
  });

  it('/metrics counts the events recorded, by type', async () => {
    const recorded = async (type: EventType) => {
      const res = await t.app.inject({ method: 'GET', url: '/metrics' });
      const line = new RegExp(`^events_recorded_total\\{type="${type}"\\} (\\d+)$`, 'm').exec(res.body);
      return Number(line?.[1] ?? 0);
    };
    const [created, confirmed] = [await recorded('ORDER_CREATED'), await recorded('ORDER_CONFIRMED')];
    const orderId = await newOrder();
    await act(customer, orderId, 'confirm');
    expect(await recorded('ORDER_CREATED')).toBe(created + 1);
    expect(await recorded('ORDER_CONFIRMED')).toBe(confirmed + 1);
  });

  describe('task events', () => {
    let probe: TasksProbe;
    beforeAll(() => {
      probe = t.app.get(TasksProbe);
    });

    /** The task's events in the feed, once there is one. */
    async function taskEvents(taskId: string): Promise<Event[]> {
      return eventually(
        `an event of task ${taskId}`,
        async () => {
          const events = (await feed('type=TASK_COMPLETED&type=TASK_FAILED&type=TASK_CANCELLED')).filter(
            (event) => event.taskId === taskId,
          );
          return events.length > 0 ? events : undefined;
        },
        { intervalMs: 50 },
      );
    }

    const startExport = async (client: ApiClient, owner: string) => {
      const res = await client('POST', `/api/v1/customers/${owner}/export`, {
        body: { format: 'JSON' },
        headers: withIdempotencyKey(),
      });
      expect(res.statusCode).toBe(202);
      return res.json<{ taskId: string }>().taskId;
    };

    it('a completed task records TASK_COMPLETED with the task as its read serves it, no actor', async () => {
      const taskId = await startExport(customer, customerId);
      const [event] = await taskEvents(taskId);
      expect(event).toEqual({
        eventId: expect.stringMatching(UUID),
        type: 'TASK_COMPLETED',
        sequence: expect.any(Number),
        occurredAt: expect.stringMatching(TIMESTAMP),
        taskId,
        customerId,
        data: (await customer('GET', `/api/v1/tasks/${taskId}`)).json(),
      });
      expect(await taskEvents(taskId)).toHaveLength(1);
    });

    it('a failed task records TASK_FAILED; a cancelled one TASK_CANCELLED with its canceller', async () => {
      probe.failing.push((task) => task.ownerId === adminId);
      const failedTask = await startExport(admin, customerId);
      const [failed] = await taskEvents(failedTask);
      probe.failing.pop();
      expect(failed).toMatchObject({ type: 'TASK_FAILED', taskId: failedTask, customerId });
      expect(failed.actorId).toBeUndefined();
      expect(failed.data).toEqual((await admin('GET', `/api/v1/tasks/${failedTask}`, { lang: 'ru' })).json());

      probe.slow.push({ matches: (task) => task.ownerId === customerId, pauseMs: 200 });
      const cancelledTask = await startExport(customer, customerId);
      const cancel = await customer('POST', `/api/v1/tasks/${cancelledTask}/cancel`);
      probe.slow.pop();
      expect(cancel.statusCode).toBe(200);
      const [cancelled] = await taskEvents(cancelledTask);
      expect(cancelled).toMatchObject({ type: 'TASK_CANCELLED', customerId, actorId: customerId });
      expect(cancelled.data).toEqual((await customer('GET', `/api/v1/tasks/${cancelledTask}`)).json());
      expect(await taskEvents(cancelledTask)).toHaveLength(1);
    });
  });

  describe('reading events', () => {
    it('GET /events/{eventId} serves the event as the feed does; unknown is 404 EVENT_NOT_FOUND', async () => {
      const orderId = await newOrder();
      const [event] = await feed(`orderId=${orderId}`);
      const res = await admin('GET', `${EVENTS}/${event.eventId}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(event);
      expectProblem(await admin('GET', `${EVENTS}/${randomUUID()}`), 404, 'EVENT_NOT_FOUND');
      expectProblem(await customer('GET', `${EVENTS}/${event.eventId}`), 403, 'ACCESS_DENIED');
      expectProblem(await customer('GET', EVENTS), 403, 'ACCESS_DENIED');
    });

    it("an order's timeline: its events oldest first, offset-paged, for its owner and admins", async () => {
      const orderId = await newOrder();
      await act(customer, orderId, 'confirm');
      await act(customer, orderId, 'cancel');
      const res = await customer('GET', `${ORDERS}/${orderId}/events?size=2`);
      expect(res.statusCode).toBe(200);
      const page = res.json<{ content: Event[] }>();
      expect(page).toEqual({ content: expect.any(Array), page: 1, size: 2, totalElements: 3, totalPages: 2 });
      expect(page.content.map((e) => e.type)).toEqual(['ORDER_CREATED', 'ORDER_CONFIRMED']);
      const events = await feed(`orderId=${orderId}`);
      expect(page.content).toEqual(events.slice(0, 2).map(({ sequence: _, ...shown }) => shown));
      const second = (await admin('GET', `${ORDERS}/${orderId}/events?page=2&size=2`)).json<{
        content: Event[];
      }>();
      expect(second.content).toEqual(events.slice(2));

      const stranger = apiClient(t, (await callerToken(t.config, ['CUSTOMER'])).authorization);
      expectProblem(await stranger('GET', `${ORDERS}/${orderId}/events`), 403, 'ACCESS_DENIED');
      expectProblem(await admin('GET', `${ORDERS}/${randomUUID()}/events`), 404, 'ORDER_NOT_FOUND');
    });

    it("a customer's timeline: no sequence, an actorId only when it is the customer's own; an admin's: all", async () => {
      const orderId = await newOrder();
      expect((await act(admin, orderId, 'confirm')).statusCode).toBe(200);
      const events = await feed(`orderId=${orderId}`);
      expect(events.map((e) => [e.type, e.actorId])).toEqual([
        ['ORDER_CREATED', customerId],
        ['ORDER_CONFIRMED', adminId],
      ]);

      const mine = (await customer('GET', `${ORDERS}/${orderId}/events`)).json<{ content: Event[] }>();
      const [created, confirmed] = events.map(({ sequence: _, ...shown }) => shown);
      const { actorId: _, ...confirmedByOther } = confirmed;
      expect(mine.content).toEqual([created, confirmedByOther]);
      for (const event of mine.content) expect(event).not.toHaveProperty('sequence');

      const asAdmin = (await admin('GET', `${ORDERS}/${orderId}/events`)).json<{ content: Event[] }>();
      expect(asAdmin.content).toEqual(events);
    });

    it('filters by type (repeatable), order and customer; every page carries nextCursor', async () => {
      const orderId = await newOrder();
      await act(customer, orderId, 'confirm');
      const byType = await feed(`orderId=${orderId}&type=ORDER_CONFIRMED&type=ORDER_CANCELLED`);
      expect(byType.map((e) => e.type)).toEqual(['ORDER_CONFIRMED']);
      const all = await feed(`orderId=${orderId}`);
      expect(all.map((e) => e.type)).toEqual(['ORDER_CREATED', 'ORDER_CONFIRMED']);
      expect(all[0].sequence).toBeLessThan(all[1].sequence);

      // An empty page still says where to resume: past every event visible now.
      const empty = (await admin('GET', `${EVENTS}?customerId=${randomUUID()}`)).json<FeedPage>();
      expect(empty).toEqual({
        content: [],
        size: 20,
        nextCursor: expect.any(String),
        hasNext: false,
        hasPrev: false,
      });
      const later = await newOrder();
      const resumed = (
        await admin('GET', `${EVENTS}?cursor=${empty.nextCursor}&orderId=${later}`)
      ).json<FeedPage>();
      expect(resumed.content.map((e) => e.orderId)).toEqual([later]);

      // An empty cursor starts at the oldest event kept, as no cursor does (and as the order lists take it).
      const fromStart = await admin('GET', `${EVENTS}?cursor=&orderId=${orderId}`);
      expect(fromStart.statusCode).toBe(200);
      expect(fromStart.json<FeedPage>().content.map((e) => e.type)).toEqual([
        'ORDER_CREATED',
        'ORDER_CONFIRMED',
      ]);

      const invalid = await admin('GET', `${EVENTS}?cursor=abc`);
      expect(violationsOf(invalid)).toEqual([
        expect.objectContaining({ field: 'cursor', code: 'INVALID_CURSOR' }),
      ]);
      const badType = await admin('GET', `${EVENTS}?type=ORDER_EATEN`);
      expectProblem(badType, 400, 'VALIDATION_ERROR');
      expect(EVENT_TYPES).toContain('ORDER_CREATED');
    });

    it('a cursor pointing before what retention deleted is 400 CURSOR_EXPIRED', async () => {
      const orderId = await newOrder();
      const [created] = await feed(`orderId=${orderId}`);
      const before = (await admin('GET', `${EVENTS}?orderId=${orderId}`)).json<FeedPage>();
      // Make this test's event old enough to go, and run the scheduled job's pass.
      await db.query(
        `UPDATE events SET occurred_at = occurred_at - interval '400 days' WHERE sequence <= $1`,
        [created.sequence],
      );
      const cursorBefore = Buffer.from(`seq:${created.sequence - 1}`).toString('base64url');
      await t.app.get(EventMaintenance).applyRetention();
      const res = await admin('GET', `${EVENTS}?cursor=${cursorBefore}`);
      expect(violationsOf(res)).toEqual([
        expect.objectContaining({ field: 'cursor', code: 'CURSOR_EXPIRED' }),
      ]);
      // A cursor at or after the deleted events stays valid.
      expect((await admin('GET', `${EVENTS}?cursor=${before.nextCursor}`)).statusCode).toBe(200);
      expectProblem(await admin('GET', `${EVENTS}/${created.eventId}`), 404, 'EVENT_NOT_FOUND');
    });
  });
});
