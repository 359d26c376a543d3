/**
 * Type tests of the client, compiled by test/client/types.spec.ts (and `npm run typecheck`), never run. Each
 * `@ts-expect-error` line must fail to compile, or the directive itself is an error: together they prove
 * what the types refuse as well as what they accept.
 */
import {
  AbortError,
  createOrderServiceClient,
  ifMatch,
  NetworkError,
  ProblemError,
  TaskFailedError,
  TimeoutError,
  type ErrorCode,
  type Event,
  type Order,
  type Task,
} from '@order-service/client';

const client = createOrderServiceClient({ baseUrl: 'https://orders.example.com', token: () => 'token' });
const orderId = '7f1c0e7e-1f2a-4c53-9d0e-2b6f1b9f4a10';

function unreachable(value: never): never {
  throw new Error(`unexpected ${String(value)}`);
}

/** A switch over every code confirmOrder declares compiles, with a `never` check in its default branch. */
export async function exhaustiveSwitch(): Promise<string> {
  const { error } = await client.POST('/api/v1/orders/{orderId}/confirm', { params: { path: { orderId } } });
  if (!error) return 'confirmed';
  switch (error.code) {
    case 'VALIDATION_ERROR':
    case 'UNAUTHORIZED':
    case 'ACCESS_DENIED':
    case 'ORDER_NOT_FOUND':
    case 'INVALID_ORDER_STATE':
    case 'ORDER_EMPTY':
    case 'INSUFFICIENT_STOCK':
    case 'CONCURRENT_MODIFICATION':
    case 'IDEMPOTENCY_KEY_REUSED':
    case 'IDEMPOTENCY_KEY_IN_PROGRESS':
    case 'RATE_LIMIT_EXCEEDED':
    case 'INTERNAL_ERROR':
    case 'SERVICE_UNAVAILABLE':
      return error.code;
    default:
      return unreachable(error.code);
  }
}

/** Leaving a declared code out is a compile error in the `never` check. */
export async function switchMissingACode(): Promise<string> {
  const { error } = await client.POST('/api/v1/orders/{orderId}/confirm', { params: { path: { orderId } } });
  if (!error) return 'confirmed';
  switch (error.code) {
    case 'VALIDATION_ERROR':
    case 'UNAUTHORIZED':
    case 'ACCESS_DENIED':
    case 'ORDER_NOT_FOUND':
    case 'INVALID_ORDER_STATE':
    case 'ORDER_EMPTY':
    case 'CONCURRENT_MODIFICATION':
    case 'IDEMPOTENCY_KEY_REUSED':
    case 'IDEMPOTENCY_KEY_IN_PROGRESS':
    case 'RATE_LIMIT_EXCEEDED':
    case 'INTERNAL_ERROR':
    case 'SERVICE_UNAVAILABLE':
      return error.code;
    default:
      // @ts-expect-error INSUFFICIENT_STOCK is not handled
      return unreachable(error.code);
  }
}

/** A code the operation does not declare is a compile error: getOrder never answers INSUFFICIENT_STOCK. */
export async function undeclaredCode(): Promise<boolean> {
  const { error } = await client.GET('/api/v1/orders/{orderId}', { params: { path: { orderId } } });
  // @ts-expect-error not a code of getOrder
  return error?.code === 'INSUFFICIENT_STOCK';
}

/** The error is a ProblemError of the operation's codes, a subset of every code; the data is the order. */
export async function resultTypes(): Promise<Order> {
  const { data, error } = await client.GET('/api/v1/orders/{orderId}', { params: { path: { orderId } } });
  if (error) {
    const typed: ProblemError<'ORDER_NOT_FOUND' | ErrorCode> = error;
    const { status, detail, violations, traceId } = error;
    void [typed, status, detail, violations.map((v) => v.field), traceId?.length];
    throw error;
  }
  return data;
}

/** The client makes the Idempotency-Key the document requires; a caller may still give one, as a string. */
export async function idempotencyKeys(): Promise<void> {
  const items = [{ productId: orderId, quantity: 1 }];
  await client.POST('/api/v1/orders', { body: { items } });
  await client.POST('/api/v1/orders', {
    body: { items },
    params: { header: { 'Idempotency-Key': orderId } },
  });
  // @ts-expect-error a key is a string
  await client.POST('/api/v1/orders', { body: { items }, params: { header: { 'Idempotency-Key': 42 } } });
}

/** Bodies, paths and parameters are the document's. */
export async function misuse(): Promise<void> {
  // @ts-expect-error quantity is a number
  await client.POST('/api/v1/orders', { body: { items: [{ productId: orderId, quantity: '1' }] } });
  // @ts-expect-error a note is a string
  await client.POST('/api/v1/orders', { body: { note: 42 } });
  // @ts-expect-error no such path
  await client.GET('/api/v1/order/{orderId}', { params: { path: { orderId } } });
  // @ts-expect-error the path parameter is required
  await client.GET('/api/v1/orders/{orderId}', {});
  // @ts-expect-error GET takes no body
  await client.GET('/api/v1/orders/{orderId}', { params: { path: { orderId } }, body: {} });
  // @ts-expect-error status filters are OrderStatus values
  for await (const order of client.orders.all({ status: ['PAID'] })) void order;
}

/** If-Match comes from a read; the iterator yields orders. */
export async function conditionalChange(): Promise<void> {
  const read = await client.GET('/api/v1/orders/{orderId}', { params: { path: { orderId } } });
  await client.PATCH('/api/v1/orders/{orderId}', {
    params: { path: { orderId }, header: { ...ifMatch(read) } },
    body: { note: 'ring twice' },
  });
  for await (const order of client.orders.all({ status: ['CONFIRMED'] })) {
    const total: number = order.totalAmount;
    // @ts-expect-error orders have no such field
    void [total, order.price];
  }
}

/** The feed yields events whose `data` is typed by their `type`: an order for order events, a task else. */
export async function followTheFeed(signal: AbortSignal): Promise<void> {
  for await (const event of client.events.all(
    { type: ['ORDER_CONFIRMED', 'TASK_FAILED'], follow: true },
    { signal },
  )) {
    const seen: Event = event;
    // @ts-expect-error only an order event's data has a total
    void [seen, event.data.totalAmount];
    if (event.type === 'ORDER_CONFIRMED') {
      const total: number = event.data.totalAmount;
      const orderOf: string = event.orderId;
      void [total, orderOf];
    } else if (event.type === 'TASK_FAILED') {
      const code: ErrorCode | undefined = event.data.error?.code;
      void code;
    }
  }
  // @ts-expect-error type filters are event types
  for await (const event of client.events.all({ type: ['ORDER_EATEN'] })) void event;
  // @ts-expect-error follow is a flag or its options
  for await (const event of client.events.all({ follow: 'yes' })) void event;
}

/**
 * A field the operation does not declare does not compile, in both call styles, and the error is on the
 * misspelt field's own line: the bodies are not inferred from the argument.
 */
export async function misspeltFields(): Promise<void> {
  const items = [{ productId: orderId, quantity: 1 }];
  await client.POST('/api/v1/orders', {
    body: {
      items,
      // @ts-expect-error `note`, misspelt
      notes: 'Leave at the door',
    },
  });
  await client.POST('/api/v1/orders', {
    body: {
      items: [
        {
          productId: orderId,
          quantity: 1,
          // @ts-expect-error an item has no discount
          discount: 5,
        },
      ],
    },
  });
  await client.PATCH('/api/v1/orders/{orderId}', {
    params: { path: { orderId } },
    body: {
      // @ts-expect-error `note`, misspelt, in a merge patch
      nte: 'x',
    },
  });
  await client.GET('/api/v1/products', {
    params: {
      query: {
        size: 10,
        // @ts-expect-error no such query parameter
        pageSize: 10,
      },
    },
  });
  await client.orders.create({
    items,
    // @ts-expect-error `note`, misspelt
    notes: 'Leave at the door',
  });
  await client.orders.create({
    items: [
      {
        productId: orderId,
        quantity: 1,
        // @ts-expect-error an item has no discount
        discount: 5,
      },
    ],
  });
  await client.orders.patch(orderId, {
    // @ts-expect-error `note`, misspelt, in a merge patch
    nte: 'x',
  });
  await client.orders.ship(orderId, {
    trackingNumber: 'RA123',
    carrier: 'Post',
    // @ts-expect-error a shipment has no such field
    eta: '2026-12-01',
  });
  await client.products.list({
    size: 10,
    // @ts-expect-error no such query parameter
    pageSize: 10,
  });
  for await (const order of client.orders.all({
    status: ['CREATED'],
    // @ts-expect-error the walk pages by cursor itself
    page: 2,
  }))
    void order;
}

/** Resource methods: path parameters first, then the body or the query, then the options; they resolve with the body. */
export async function resourceMethods(signal: AbortSignal): Promise<void> {
  const created: Order = await client.orders.create({ items: [{ productId: orderId, quantity: 1 }] });
  const confirmed: Order = await client.orders.confirm(created.orderId, { signal });
  await client.orders.patch(orderId, { note: 'Ring twice' }, { headers: ifMatch(confirmed) });
  await client.orders.create(
    { items: [{ productId: orderId, quantity: 1 }] },
    { headers: { 'Idempotency-Key': crypto.randomUUID() } },
  );
  // @ts-expect-error ship needs a tracking number and a carrier
  await client.orders.ship(orderId, {});
  // @ts-expect-error cancel needs a body with a reason
  await client.orders.cancel(orderId);
  // @ts-expect-error the order id is a string
  await client.orders.get(42);
  const removed: undefined = await client.orders.delete(orderId);
  const file: Blob = await client.orders.downloadAttachment(orderId, orderId);
  const uploaded = await client.orders.uploadAttachment(orderId, {
    file: new File(['%PDF-1.4'], 'invoice.pdf', { type: 'application/pdf' }),
  });
  const fileName: string = uploaded.fileName;
  void [removed, file, fileName];

  // Offset or cursor paging, by whether the query names a cursor.
  const offsetPage = await client.orders.list({ page: 2, size: 20 });
  const total: number = offsetPage.totalElements;
  const cursorPage = await client.orders.list({ cursor: '', size: 20 });
  const more: boolean = cursorPage.hasNext;
  // @ts-expect-error a cursor page has no total
  void [total, more, cursorPage.totalElements];

  // Every list walks: offset lists by page, cursor lists by cursor; the feed may follow, other lists not.
  for await (const item of client.orders.allItems(orderId, { size: 100 })) void item.productId;
  for await (const product of client.products.all()) void product.name;
  for await (const event of client.events.all({ follow: { intervalMs: 100 } }, { signal })) void event.type;
  // @ts-expect-error only the feed can be followed
  for await (const order of client.orders.all({ follow: true })) void order;

  const task: Task = await client.tasks.wait(orderId, { signal, pollIntervalMs: 500 });
  const report = await client.reports.generateAndWait({ dateFrom: '2026-01-01', dateTo: '2026-01-31' });
  const exported: Blob = await client.customers.exportDataAndWait(orderId, { format: 'CSV' });
  void [task.status, report.reportId, exported.size];
}

/** What a failed call rejects with: exported classes, each named as its class. */
export async function failures(): Promise<string> {
  try {
    await client.orders.confirm(orderId);
    return 'confirmed';
  } catch (error) {
    if (error instanceof ProblemError) return error.code;
    if (error instanceof TimeoutError || error instanceof NetworkError || error instanceof AbortError)
      return error.name;
    if (error instanceof TaskFailedError) return error.task.status;
    throw error;
  }
}
