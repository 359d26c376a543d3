import { randomUUID } from 'node:crypto';
import type { OperationObject } from '@nestjs/swagger';
import {
  createOrderServiceClient,
  ifMatch,
  ProblemError,
  responseOf,
  type OrderServiceClient,
} from '@order-service/client';
import { RESOURCE_OPERATIONS } from '../client/src/generated/resources';
import { clientDocument } from '../scripts/client-document';
import { HTTP_METHODS } from '../src/bootstrap/openapi/endpoint-conventions';
import { bootTestApp, listenOnFreePort, TestApp } from './support/test-app';
import { bearer } from './support/tokens';

/** The smallest PDF the service takes. */
const PDF = '%PDF-1.4\n%%EOF\n';

/**
 * The client's resource methods (`client.orders.confirm(orderId)`) against the service: they resolve with the
 * answer's body and throw a `ProblemError`; every list walks its pages; the task helpers wait for a report and
 * an export. The path-level calls are tested in client.e2e-spec.ts, the client's own behaviour in test/client/.
 */
describe('the client resource methods against the service', () => {
  let t: TestApp;
  let baseUrl: string;
  let admin: OrderServiceClient;
  let productId: string;

  beforeAll(async () => {
    t = await bootTestApp();
    baseUrl = await listenOnFreePort(t);
    const token = (await bearer(t.config, ['ADMIN'])).replace(/^Bearer /, '');
    admin = createOrderServiceClient({ baseUrl, token, language: 'en' });
    const product = await admin.products.create({
      name: `Resource kettle ${randomUUID().slice(0, 8)}`,
      price: 12.5,
      stock: 1000,
    });
    productId = product.productId;
  });
  afterAll(() => t.close());

  it('every operation of the document has a method, and every list an all…()', async () => {
    const document = await clientDocument();
    const operations = Object.values(document.paths).flatMap((item) =>
      HTTP_METHODS.flatMap((method) => {
        const operation: OperationObject | undefined = item[method];
        return operation?.operationId ? [operation.operationId] : [];
      }),
    );
    const methods = Object.entries(RESOURCE_OPERATIONS).flatMap(([resource, entries]) =>
      Object.entries(entries).map(([name, entry]) => ({ resource, name, entry })),
    );
    const called = methods.flatMap(({ entry }) => ('operationId' in entry ? [entry.operationId] : []));
    expect([...called].sort()).toEqual([...operations].sort());
    const names = methods.map(({ resource, name }) => `${resource}.${name}`);
    for (const { resource, name } of methods) {
      const method = (admin as unknown as Record<string, Record<string, unknown>>)[resource][name];
      expect({ [`${resource}.${name}`]: typeof method }).toEqual({ [`${resource}.${name}`]: 'function' });
      if (/^list/.test(name)) expect(names).toContain(`${resource}.all${name.slice('list'.length)}`);
    }
    expect(names).toEqual(
      expect.arrayContaining(['orders.all', 'orders.allItems', 'events.all', 'products.all']),
    );
  });

  it("an order's life: each method resolves with the body, and a refused call throws its ProblemError", async () => {
    const order = await admin.orders.create({
      items: [{ productId, quantity: 2 }],
      note: 'Leave at the door',
      deliveryAddress: { streetName: 'Tverskaya 1', zipCode: '125009' },
    });
    expect(order).toMatchObject({ status: 'CREATED', totalAmount: 25, note: 'Leave at the door' });

    const confirmed = await admin.orders.confirm(order.orderId);
    expect(confirmed.status).toBe('CONFIRMED');
    const again = await admin.orders.confirm(order.orderId).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(ProblemError);
    expect(again).toMatchObject({ status: 409, code: 'INVALID_ORDER_STATE' });

    const shipped = await admin.orders.ship(order.orderId, {
      trackingNumber: 'RA123456789RU',
      carrier: 'Post',
    });
    expect(shipped).toMatchObject({ status: 'SHIPPED', trackingNumber: 'RA123456789RU' });
    expect((await admin.orders.get(order.orderId)).status).toBe('SHIPPED');
    expect(await admin.orders.getStatusLegacy(order.orderId)).toEqual({ status: 'SHIPPED' });
    expect((await admin.orders.getV2(order.orderId)).total).toEqual({ amount: '25.00', currency: 'RUB' });
  });

  it('If-Match from a body a method resolved with; the answer stays reachable with responseOf', async () => {
    const order = await admin.orders.create({ items: [{ productId, quantity: 1 }] });
    const read = await admin.orders.get(order.orderId);
    expect(responseOf(read)?.headers.get('ETag')).toMatch(/^"/);
    const patched = await admin.orders.patch(
      order.orderId,
      { note: 'Ring twice' },
      { headers: ifMatch(read) },
    );
    expect(patched.note).toBe('Ring twice');
    const stale = await admin.orders
      .patch(order.orderId, { note: 'Knock' }, { headers: ifMatch(read) })
      .catch((error: unknown) => error);
    expect(stale).toMatchObject({ name: 'ProblemError', code: 'CONCURRENT_MODIFICATION' });
    expect(await admin.orders.delete(order.orderId)).toBeUndefined();
  });

  it('a list answers an offset page, or a cursor page when the query names a cursor', async () => {
    const customerId = randomUUID();
    await admin.orders.create({ items: [{ productId, quantity: 1 }], customerId });
    const offset = await admin.orders.list({ customerId, page: 1 });
    expect(offset).toMatchObject({ page: 1, totalElements: 1, totalPages: 1 });
    const cursor = await admin.orders.list({ customerId, cursor: '' });
    expect(cursor).toMatchObject({ hasNext: false, hasPrev: false });
    expect(cursor.content).toHaveLength(1);
  });

  it('all…() walks an offset-paged list page after page', async () => {
    const order = await admin.orders.create({ items: [{ productId, quantity: 1 }] });
    for (let i = 0; i < 2; i++) {
      const other = await admin.products.create({
        name: `Walked ${randomUUID().slice(0, 8)}`,
        price: 1,
        stock: 9,
      });
      await admin.orders.addItem(order.orderId, { productId: other.productId, quantity: 1 });
    }
    const walked = [];
    for await (const item of admin.orders.allItems(order.orderId, { size: 1 })) walked.push(item.productId);
    expect(walked).toHaveLength(3);
    expect(walked[0]).toBe(productId);
    expect(new Set(walked).size).toBe(3);
    const firstPage = await admin.orders.listItems(order.orderId, { size: 1 });
    expect(firstPage.totalPages).toBe(3);
  });

  it('uploads a file as a form and downloads it as a Blob', async () => {
    const order = await admin.orders.create({ items: [{ productId, quantity: 1 }] });
    const uploaded = await admin.orders.uploadAttachment(order.orderId, {
      file: new File([PDF], 'invoice.pdf', { type: 'application/pdf' }),
      description: 'Invoice',
    });
    expect(uploaded).toMatchObject({ fileName: 'invoice.pdf', contentType: 'application/pdf' });
    const file = await admin.orders.downloadAttachment(order.orderId, uploaded.attachmentId);
    expect(file).toBeInstanceOf(Blob);
    expect(await file.text()).toBe(PDF);
    const listed = [];
    for await (const attachment of admin.orders.allAttachments(order.orderId))
      listed.push(attachment.attachmentId);
    expect(listed).toEqual([uploaded.attachmentId]);
    await admin.orders.deleteAttachment(order.orderId, uploaded.attachmentId);
    const gone = await admin.orders
      .downloadAttachment(order.orderId, uploaded.attachmentId)
      .catch((error: unknown) => error);
    expect(gone).toMatchObject({ status: 404, code: 'ATTACHMENT_NOT_FOUND' });
  });

  it('reports.generateAndWait resolves with the report; tasks.wait with the finished task', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const report = await admin.reports.generateAndWait(
      { dateFrom: today, dateTo: today },
      { pollIntervalMs: 100 },
    );
    expect(report).toMatchObject({ dateFrom: today, dateTo: today, reportId: expect.any(String) });
    expect(await admin.reports.get(report.reportId)).toEqual(report);

    const started = await admin.reports.generate({ dateFrom: today, dateTo: today });
    const task = await admin.tasks.wait(started.taskId, { pollIntervalMs: 100 });
    expect(task).toMatchObject({
      taskId: started.taskId,
      status: 'COMPLETED',
      resultUrl: expect.any(String),
    });
  });

  it("customers.exportDataAndWait resolves with the export's file", async () => {
    const customerId = randomUUID();
    const token = (await bearer(t.config, ['CUSTOMER'], customerId)).replace(/^Bearer /, '');
    const customer = createOrderServiceClient({ baseUrl, token });
    const order = await customer.orders.create({ items: [{ productId, quantity: 1 }] });
    const file = await customer.customers.exportDataAndWait(
      customerId,
      { format: 'JSON' },
      { pollIntervalMs: 100 },
    );
    expect(file).toBeInstanceOf(Blob);
    expect(await file.text()).toContain(order.orderId);
  });
});
