import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { DataSource } from 'typeorm';
import { TaskMaintenance } from '../src/modules/tasks/task-maintenance.service';
import { adminClient, customerClient } from './support/callers';
import { ApiClient, withIdempotencyKey } from './support/http-client';
import { createOrder, ORDERS } from './support/orders';
import { expectProblem, violationsOf } from './support/problem';
import { createProduct } from './support/products';
import { TasksProbe, TasksProbeModule } from './support/probes/tasks.probe';
import { seedCustomer, seedOrders, seedProduct } from './support/seed';
import { bootTestApp, TestApp } from './support/test-app';
import { eventually, until } from './support/wait';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const TASKS = '/api/v1/tasks';

interface TaskBody {
  taskId: string;
  type: string;
  status: string;
  progress?: number;
  createdAt: string;
  updatedAt?: string;
  completedAt?: string;
  resultUrl?: string;
  error?: { code: string; detail: string };
}

/** Polls the task until it ends (or `ended` holds), recording every progress value seen. */
async function pollTask(
  client: ApiClient,
  location: string,
  ended: (task: TaskBody) => boolean = (task) => !['PENDING', 'PROCESSING'].includes(task.status),
): Promise<{ task: TaskBody; seen: TaskBody[]; responses: LightMyRequestResponse[] }> {
  const seen: TaskBody[] = [];
  const responses: LightMyRequestResponse[] = [];
  const task = await eventually(
    `task ${location} to end`,
    async () => {
      const res = await client('GET', location);
      expect(res.statusCode).toBe(200);
      const current = res.json<TaskBody>();
      seen.push(current);
      responses.push(res);
      return ended(current) ? current : undefined;
    },
    { intervalMs: 25 },
  );
  return { task, seen, responses };
}

describe('long-running tasks: reports and customer exports', () => {
  let t: TestApp;
  let db: DataSource;
  let admin: ApiClient;
  let probe: TasksProbe;

  beforeAll(async () => {
    t = await bootTestApp({}, [TasksProbeModule]);
    db = t.app.get(DataSource);
    admin = await adminClient(t);
    probe = t.app.get(TasksProbe);
  });
  afterAll(() => t.close());

  async function startReport(
    dateFrom: string,
    dateTo: string,
    client = admin,
    headers?: Record<string, string>,
  ) {
    return client('POST', '/api/v1/reports/generate', { body: { dateFrom, dateTo }, headers });
  }

  async function startExport(client: ApiClient, customerId: string, format: 'CSV' | 'JSON') {
    return client('POST', `/api/v1/customers/${customerId}/export`, { body: { format } });
  }

  function accepted(res: LightMyRequestResponse): string {
    expect(res.statusCode).toBe(202);
    const location = String(res.headers.location);
    expect(location).toMatch(/^\/api\/v1\/tasks\/[0-9a-f-]{36}$/);
    expect(res.json()).toEqual({
      taskId: location.slice(TASKS.length + 1),
      status: 'PENDING',
      createdAt: expect.stringMatching(TIMESTAMP),
      statusUrl: location,
    });
    return location;
  }

  describe('report generation', () => {
    // A range of its own in 2001, so other suites' orders (created today) never count.
    const range = { dateFrom: '2001-03-01', dateTo: '2001-03-31' };
    let cheap: string;
    let dear: string;

    beforeAll(async () => {
      const customer = await seedCustomer(db);
      cheap = await seedProduct(db, 'Cheap widget', '1.10');
      dear = await seedProduct(db, 'Dear widget', '250.00');
      // 25,000 orders of one cheap widget on 2001-03-10 (three chunks), and 2 orders of 3 dear ones on the 20th.
      await seedOrders(db, {
        customerId: customer,
        count: 25_000,
        from: '2001-03-10T00:00:00Z',
        productId: cheap,
        unitPrice: '1.10',
      });
      await seedOrders(db, {
        customerId: customer,
        count: 2,
        from: '2001-03-20T12:00:00Z',
        productId: dear,
        unitPrice: '250.00',
        quantity: 3,
      });
      await db.query(
        `UPDATE orders SET status = 'CANCELLED', cancelled_at = created_at
         WHERE order_id IN (SELECT order_id FROM orders WHERE total_amount = 750.00 AND created_at >= '2001-03-20' LIMIT 1)`,
      );
      probe.slow.push({ matches: (task) => task.type === 'REPORT_GENERATION', pauseMs: 150 });
    });

    it('runs from 202 to COMPLETED with rising progress, then serves the report', async () => {
      const location = accepted(await startReport(range.dateFrom, range.dateTo));
      const { task, seen, responses } = await pollTask(admin, location);

      expect(task).toEqual({
        taskId: location.slice(TASKS.length + 1),
        type: 'REPORT_GENERATION',
        status: 'COMPLETED',
        progress: 100,
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP),
        completedAt: expect.stringMatching(TIMESTAMP),
        resultUrl: expect.stringMatching(/^\/api\/v1\/reports\/[0-9a-f-]{36}$/),
      });
      // Progress only rises, and was seen between the start and the end.
      const progress = seen.filter((s) => s.progress !== undefined).map((s) => s.progress as number);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      expect(progress.some((p) => p > 0 && p < 100)).toBe(true);
      for (const [i, s] of seen.entries()) {
        if (s.status === 'PENDING')
          expect(Object.keys(s).sort()).toEqual(['createdAt', 'status', 'taskId', 'type']);
        if (s.status === 'PROCESSING') expect(s.progress).toEqual(expect.any(Number));
        if (s.status === 'PENDING' || s.status === 'PROCESSING')
          expect(responses[i].headers['retry-after']).toBe('2');
      }
      expect(responses[responses.length - 1].headers['retry-after']).toBeUndefined();

      const report = await admin('GET', String(task.resultUrl));
      expect(report.statusCode).toBe(200);
      const body = report.json();
      expect(body).toMatchObject({
        reportId: String(task.resultUrl).split('/').pop(),
        dateFrom: '2001-03-01',
        dateTo: '2001-03-31',
        currency: 'RUB',
        orderCount: 25_002,
        totalAmount: 29_000, // 25,000 × 1.10 + 2 × 750
        byStatus: [
          { status: 'CANCELLED', orderCount: 1, totalAmount: 750 },
          { status: 'CREATED', orderCount: 25_001, totalAmount: 28_250 },
        ],
        topProductsByQuantity: [
          { productId: cheap, productName: 'Cheap widget', quantity: 25_000, amount: 27_500 },
          { productId: dear, productName: 'Dear widget', quantity: 6, amount: 1_500 },
        ],
        topProductsByAmount: [
          { productId: cheap, productName: 'Cheap widget', quantity: 25_000, amount: 27_500 },
          { productId: dear, productName: 'Dear widget', quantity: 6, amount: 1_500 },
        ],
      });
      expect(body.generatedAt).toMatch(TIMESTAMP);
      expect(body.daily).toHaveLength(31);
      expect(body.daily[0]).toEqual({ date: '2001-03-01', orderCount: 0, totalAmount: 0 });
      expect(body.daily[9]).toEqual({ date: '2001-03-10', orderCount: 25_000, totalAmount: 27_500 });
      expect(body.daily[19]).toEqual({ date: '2001-03-20', orderCount: 2, totalAmount: 1_500 });
    });

    it('is for admins only, and checks its range: order and at most 366 days, all problems at once', async () => {
      const customer = await customerClient(t);
      expectProblem(await startReport('2001-01-01', '2001-01-02', customer), 403, 'ACCESS_DENIED');

      const reversed = expectProblem(await startReport('2001-02-01', '2001-01-01'), 400, 'VALIDATION_ERROR');
      expect(reversed.violations).toEqual([
        { field: 'dateFrom', code: 'INVALID_RANGE', message: expect.any(String) },
      ]);
      const long = await admin('POST', '/api/v1/reports/generate', {
        body: { dateFrom: '2001-01-01', dateTo: '2002-01-02' },
        lang: 'en',
      });
      expectProblem(long, 400, 'VALIDATION_ERROR');
      expect(violationsOf(long)).toEqual([
        { field: 'dateTo', code: 'MAX_RANGE', message: 'The range may span at most 366 days.' },
      ]);
      // 366 days (a leap year's worth) are fine.
      expect((await startReport('2004-01-01', '2004-12-31')).statusCode).toBe(202);

      const malformed = await admin('POST', '/api/v1/reports/generate', { body: { dateFrom: '2001-13-01' } });
      expectProblem(malformed, 400, 'VALIDATION_ERROR');
      expect(violationsOf(malformed).map((v) => [v.field, v.code])).toEqual([
        ['dateFrom', 'INVALID_FORMAT'],
        ['dateTo', 'REQUIRED'],
      ]);
    });

    it('an Idempotency-Key replays the same 202 and starts nothing new', async () => {
      const headers = withIdempotencyKey();
      // Only this test asks for reports of these dates: the count is of its own tasks.
      const reportsOfTheseDates = async () =>
        (
          await db.query(
            `SELECT count(*)::int AS n FROM tasks WHERE type = 'REPORT_GENERATION' AND parameters @> $1`,
            [JSON.stringify({ dateFrom: '2001-05-01', dateTo: '2001-05-02' })],
          )
        )[0].n;
      const before = await reportsOfTheseDates();
      const first = await startReport('2001-05-01', '2001-05-02', admin, headers);
      const again = await startReport('2001-05-01', '2001-05-02', admin, headers);
      expect(again.statusCode).toBe(202);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.headers.location).toBe(first.headers.location);
      expect(again.body).toBe(first.body);
      expect(await reportsOfTheseDates()).toBe(before + 1);
    });
  });

  describe('customer export', () => {
    let customerId: string;
    let customer: ApiClient;
    let orders: Array<Record<string, unknown>>;

    beforeAll(async () => {
      customerId = randomUUID();
      customer = await customerClient(t, customerId);
      const product = await createProduct(admin, { name: '=HYPERLINK("x"), "Quoted", Widget', price: 12.5 });
      const other = await createProduct(admin, { name: 'Plain', price: 3 });
      const first = await createOrder(customer, {
        items: [
          { productId: product.productId, quantity: 2 },
          { productId: other.productId, quantity: 1 },
        ],
        deliveryAddress: { streetName: 'Tverskaya 1, apt "5"', zipCode: '125009' },
        note: '-2+3 line one\r\nline two',
      });
      await customer('POST', `${ORDERS}/${first.orderId}/confirm`);
      const empty = await createOrder(customer, { note: '@mention' });
      orders = [];
      for (const id of [first.orderId, empty.orderId])
        orders.push((await customer('GET', `${ORDERS}/${id}`)).json());
    });

    async function exportFile(format: 'CSV' | 'JSON'): Promise<LightMyRequestResponse> {
      const location = accepted(await startExport(customer, customerId, format));
      const { task } = await pollTask(customer, location);
      expect(task).toMatchObject({ status: 'COMPLETED', progress: 100, type: 'CUSTOMER_EXPORT' });
      expect(task.resultUrl).toMatch(/^\/api\/v1\/exports\/[0-9a-f-]{36}$/);
      const file = await customer('GET', String(task.resultUrl));
      expect(file.statusCode).toBe(200);
      expect(Number(file.headers['content-length'])).toBe(file.rawPayload.length);
      return file;
    }

    it('JSON: the orders exactly as GET /orders/{orderId} serves them', async () => {
      const file = await exportFile('JSON');
      expect(file.headers['content-type']).toBe('application/json');
      expect(file.headers['content-disposition']).toBe(`attachment; filename="orders-${customerId}.json"`);
      expect(JSON.parse(file.body)).toEqual(orders);
    });

    it('CSV: RFC 4180, a row per item, an empty-item row for an order without items, formulas neutralised', async () => {
      const file = await exportFile('CSV');
      expect(file.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(file.headers['content-disposition']).toBe(`attachment; filename="orders-${customerId}.csv"`);
      const [first, empty] = orders as Array<Record<string, never>>;
      const rows = file.body.split('\r\n');
      expect(rows[0]).toBe(
        'orderId,customerId,status,totalAmount,currency,createdAt,updatedAt,confirmedAt,shippedAt,deliveredAt,' +
          'cancelledAt,refundedAt,deliveryStreetName,deliveryZipCode,note,trackingNumber,carrier,' +
          'cancellationReason,refundReason,itemId,productId,productName,quantity,unitPrice',
      );
      const orderCells = (o: Record<string, never>, note: string, street = '', zip = '') =>
        [
          o.orderId,
          customerId,
          o.status,
          o.totalAmount,
          'RUB',
          o.createdAt,
          o.updatedAt ?? '',
          o.confirmedAt ?? '',
          '',
          '',
          '',
          '',
          street,
          zip,
          note,
          '',
          '',
          '',
          '',
        ].join(',');
      const items = (first as unknown as { items: Array<Record<string, string | number>> }).items;
      expect(file.body).toBe(
        [
          rows[0],
          `${orderCells(first, `"'-2+3 line one\r\nline two"`, '"Tverskaya 1, apt ""5"""', '125009')},${items[0].itemId},${items[0].productId},"'=HYPERLINK(""x""), ""Quoted"", Widget",2,12.5`,
          `${orderCells(first, `"'-2+3 line one\r\nline two"`, '"Tverskaya 1, apt ""5"""', '125009')},${items[1].itemId},${items[1].productId},Plain,1,3`,
          `${orderCells(empty, "'@mention")},,,,,`,
          '',
        ].join('\r\n'),
      );
    });

    it('the job runs in the trace of the request that started it', async () => {
      const traceId = randomUUID().replace(/-/g, '');
      const res = await customer('POST', `/api/v1/customers/${customerId}/export`, {
        body: { format: 'CSV' },
        headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
      });
      const location = accepted(res);
      await pollTask(customer, location);
      expect(probe.traces.get(location.slice(TASKS.length + 1))).toBe(traceId);
    });

    it('a customer exports only their own data; an admin any known customer', async () => {
      const stranger = await customerClient(t);
      expectProblem(await startExport(stranger, customerId, 'CSV'), 403, 'ACCESS_DENIED');
      expect((await startExport(admin, customerId, 'JSON')).statusCode).toBe(202);
      expectProblem(await startExport(admin, randomUUID(), 'JSON'), 404, 'USER_NOT_FOUND');
      const bad = await customer('POST', `/api/v1/customers/${customerId}/export`, {
        body: { format: 'XML' },
      });
      expectProblem(bad, 400, 'VALIDATION_ERROR');
      expect(violationsOf(bad).map((v) => v.field)).toEqual(['format']);
    });

    it('results and tasks are visible to their owner and admins only: others get 404', async () => {
      const location = accepted(await startExport(customer, customerId, 'CSV'));
      const { task } = await pollTask(customer, location);
      const stranger = await customerClient(t);
      expectProblem(await stranger('GET', location), 404, 'TASK_NOT_FOUND');
      expectProblem(await stranger('GET', String(task.resultUrl)), 404, 'EXPORT_NOT_FOUND');
      expect((await admin('GET', location)).statusCode).toBe(200);
      expect((await admin('GET', String(task.resultUrl))).statusCode).toBe(200);
      expectProblem(await customer('GET', `${TASKS}/${randomUUID()}`), 404, 'TASK_NOT_FOUND');
      expectProblem(await customer('GET', `/api/v1/reports/${randomUUID()}`), 404, 'REPORT_NOT_FOUND');
      expectProblem(await customer('GET', `/api/v1/exports/${randomUUID()}`), 404, 'EXPORT_NOT_FOUND');
      expectProblem(await customer('GET', `${TASKS}/not-a-uuid`), 400, 'VALIDATION_ERROR');
    });
  });

  describe('cancel, failure, reconciliation and retention', () => {
    let customerId: string;
    let customer: ApiClient;

    beforeAll(async () => {
      customerId = await seedCustomer(db);
      customer = await customerClient(t, customerId);
      const product = await seedProduct(db, 'Bulk', '2.00');
      await seedOrders(db, {
        customerId,
        count: 3_000,
        from: '2002-01-01T00:00:00Z',
        productId: product,
        unitPrice: '2.00',
      });
    });

    it('cancels a running export: it stops at its next progress step and writes no result', async () => {
      probe.slow.push({ matches: (task) => task.ownerId === customerId, pauseMs: 300 });
      const [{ at: runStarted }] = await db.query('SELECT clock_timestamp() AS at');
      const location = accepted(await startExport(customer, customerId, 'CSV'));
      await pollTask(customer, location, (task) => task.status === 'PROCESSING');
      const taskId = location.slice(TASKS.length + 1);

      const cancelled = await customer('POST', `${location}/cancel`);
      expect(cancelled.statusCode).toBe(200);
      expect(cancelled.json()).toEqual({
        taskId: location.slice(TASKS.length + 1),
        type: 'CUSTOMER_EXPORT',
        status: 'CANCELLED',
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP),
      });
      // The run notices at its next step and stops (it ends by throwing TaskCancelled): the task stays
      // CANCELLED, no export, and no unattached file made since the run began is left.
      await until('the cancelled run to stop', () => probe.ended.has(taskId));
      expect(probe.ended.get(taskId)).toBe('TaskCancelled');
      expect((await customer('GET', location)).json().status).toBe('CANCELLED');
      expect(await db.query('SELECT 1 FROM exports WHERE task_id = $1', [taskId])).toEqual([]);
      expect(
        await db.query('SELECT blob_key FROM blobs WHERE NOT attached AND created_at >= $1', [runStarted]),
      ).toEqual([]);

      for (const lang of ['en', 'ru'] as const) {
        const again = await customer('POST', `${location}/cancel`, { lang });
        const problem = expectProblem(again, 409, 'INVALID_TASK_STATE');
        expect(problem.detail).toBe(
          lang === 'en'
            ? `Task ${taskId} has already ended (CANCELLED) and cannot be cancelled.`
            : `Задача ${taskId} уже завершена (CANCELLED) и не может быть отменена.`,
        );
      }
      probe.slow.pop();
    });

    it('a failing task is retried, then FAILED with its code and a detail localized when read', async () => {
      const failingCustomer = await seedCustomer(db);
      probe.failing.push((task) => task.ownerId === failingCustomer);
      const client = await customerClient(t, failingCustomer);
      const location = accepted(await startExport(client, failingCustomer, 'JSON'));
      const { task } = await pollTask(client, location);
      expect(task).toEqual({
        taskId: location.slice(TASKS.length + 1),
        type: 'CUSTOMER_EXPORT',
        status: 'FAILED',
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP),
        completedAt: expect.stringMatching(TIMESTAMP),
        error: { code: 'EXPORT_DATA_UNAVAILABLE', detail: expect.any(String) },
      });
      expect(probe.runs.get(task.taskId)).toBe(3);
      const en = (await client('GET', location, { lang: 'en' })).json();
      const ru = (await client('GET', location, { lang: 'ru' })).json();
      expect(en.error).toEqual({
        code: 'EXPORT_DATA_UNAVAILABLE',
        detail: 'The export could not be produced after 3 attempts.',
      });
      expect(ru.error).toEqual({
        code: 'EXPORT_DATA_UNAVAILABLE',
        detail: 'Не удалось подготовить выгрузку после 3 попыток.',
      });
      const stored = await db.query('SELECT error_code, error_args FROM tasks WHERE task_id = $1', [
        task.taskId,
      ]);
      expect(stored).toEqual([{ error_code: 'EXPORT_DATA_UNAVAILABLE', error_args: { attempts: 3 } }]);
      expectProblem(await client('POST', `${location}/cancel`), 409, 'INVALID_TASK_STATE');
    });

    it('a task whose job never reached the queue is queued by the reconciler and completes', async () => {
      const [row] = await db.query(
        `INSERT INTO tasks (type, owner_id, parameters, created_at)
         VALUES ('CUSTOMER_EXPORT', $1, $2, now() - interval '5 minutes') RETURNING task_id`,
        [customerId, JSON.stringify({ customerId, format: 'CSV' })],
      );
      const location = `${TASKS}/${row.task_id}`;
      expect((await customer('GET', location)).json().status).toBe('PENDING');
      const { requeued } = await t.app.get(TaskMaintenance).reconcile();
      expect(requeued).toBeGreaterThanOrEqual(1);
      const { task } = await pollTask(customer, location);
      expect(task.status).toBe('COMPLETED');
      const file = await customer('GET', String(task.resultUrl));
      expect(file.body.split('\r\n')).toHaveLength(3_000 + 2);
    });

    it('a PROCESSING task whose job is gone is queued again, or FAILED once its attempts are used', async () => {
      const [again, spent] = await db.query(
        `INSERT INTO tasks (type, owner_id, parameters, status, attempts, job_id, queued_at, started_at, updated_at, created_at)
         VALUES ('REPORT_GENERATION', $1, $2, 'PROCESSING', 1, 'gone.1', now() - interval '5 minutes',
                 now() - interval '5 minutes', now() - interval '5 minutes', now() - interval '5 minutes'),
                ('REPORT_GENERATION', $1, $2, 'PROCESSING', 3, 'gone.3', now() - interval '5 minutes',
                 now() - interval '5 minutes', now() - interval '5 minutes', now() - interval '5 minutes')
         RETURNING task_id`,
        [customerId, JSON.stringify({ dateFrom: '2001-06-01', dateTo: '2001-06-02' })],
      );
      await t.app.get(TaskMaintenance).reconcile();
      const failed = await db.query('SELECT status, error_code FROM tasks WHERE task_id = $1', [
        spent.task_id,
      ]);
      expect(failed).toEqual([{ status: 'FAILED', error_code: 'REPORT_GENERATION_FAILED' }]);
      const { task } = await pollTask(admin, `${TASKS}/${again.task_id}`);
      expect(task.status).toBe('COMPLETED');
    });

    it('deletes tasks finished longer ago than TASK_RETENTION_DAYS, with their results and files', async () => {
      const location = accepted(await startExport(customer, customerId, 'JSON'));
      const { task } = await pollTask(customer, location);
      const taskId = task.taskId;
      const [{ blob_key: blobKey }] = await db.query('SELECT blob_key FROM exports WHERE task_id = $1', [
        taskId,
      ]);
      const maintenance = t.app.get(TaskMaintenance);
      await maintenance.applyRetention();
      expect((await customer('GET', location)).statusCode).toBe(200); // still within 30 days
      await db.query("UPDATE tasks SET completed_at = now() - interval '31 days' WHERE task_id = $1", [
        taskId,
      ]);
      expect(await maintenance.applyRetention()).toBeGreaterThanOrEqual(1);
      expectProblem(await customer('GET', location), 404, 'TASK_NOT_FOUND');
      expectProblem(await customer('GET', String(task.resultUrl)), 404, 'EXPORT_NOT_FOUND');
      expect(await db.query('SELECT 1 FROM blobs WHERE blob_key = $1', [blobKey])).toEqual([]);
    });

    it('reports job durations, failures and queue depth in /metrics', async () => {
      const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
      expect(metrics.body).toMatch(
        /job_duration_seconds_count\{type="CUSTOMER_EXPORT",outcome="completed"\} [1-9]/,
      );
      expect(metrics.body).toMatch(/job_failures_total\{type="CUSTOMER_EXPORT"\} [1-9]/);
      expect(metrics.body).toMatch(/job_queue_depth\{queue="customer-export"\} \d+/);
    });
  });

  it('the served document declares the task operations with their schemas', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
    expect(doc.paths['/api/v1/reports/generate'].post.responses['202'].headers.Location).toBeDefined();
    expect(doc.paths['/api/v1/tasks/{taskId}'].get.responses['200'].headers['Retry-After']).toBeDefined();
    expect(doc.components.schemas.TaskStatus.enum).toEqual([
      'PENDING',
      'PROCESSING',
      'COMPLETED',
      'FAILED',
      'CANCELLED',
    ]);
    expect(doc.paths['/api/v1/exports/{exportId}'].get.responses['200'].content['text/csv'].schema).toEqual({
      type: 'string',
      format: 'binary',
      maxLength: 1024 ** 3,
    });
    expect(doc.components.schemas.TaskAcceptedResponse.required).toEqual([
      'taskId',
      'status',
      'createdAt',
      'statusUrl',
    ]);
  });
});
