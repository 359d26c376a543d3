import * as http from 'node:http';
import { DataSource } from 'typeorm';
import { adminClient, customerClient } from './support/callers';
import { ApiClient } from './support/http-client';
import { createOrder } from './support/orders';
import { expectProblem } from './support/problem';
import { bootTestApp, TestApp } from './support/test-app';
import { ReceivedRequest, verifyWebhook, WebhookReceiver } from './support/webhook-receiver';
import {
  createEndpoint,
  deliveriesOf,
  recordEvent,
  until,
  WEBHOOK_DELIVERIES,
  WEBHOOK_ENDPOINTS,
  WebhookDeliveryBody,
  WebhookEndpointBody,
} from './support/webhooks';

/**
 * Deliveries end to end, in an `all`-role app (the processor runs in it) against real receivers on this
 * machine, verified with the `standardwebhooks` package as a customer's receiver would: signature and
 * headers, subscriptions at the time of the event, retries with a short schedule and `Retry-After`, FAILED
 * after the last attempt, the manual retry, automatic disabling (410 Gone, ten final failures in a row), the
 * caps in flight per endpoint (one until an attempt succeeds, then ten) while another endpoint is served,
 * and rotation's second signature.
 */
const SCHEDULE = '100ms,100ms';

describe('webhook deliveries', () => {
  let t: TestApp;
  let admin: ApiClient;
  const receivers: WebhookReceiver[] = [];
  const endpoints: string[] = [];

  beforeAll(async () => {
    t = await bootTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_SCHEDULE: SCHEDULE });
    admin = await adminClient(t);
  });
  afterAll(async () => {
    if (endpoints.length > 0) {
      await t.app
        .get(DataSource)
        .query('DELETE FROM webhook_endpoints WHERE webhook_endpoint_id = ANY ($1)', [endpoints]);
    }
    await t.close();
    for (const receiver of receivers) await receiver.close();
  });

  async function receiver(answer?: (request: ReceivedRequest, response: http.ServerResponse) => void) {
    const started = await WebhookReceiver.start(answer ? { answer } : {});
    receivers.push(started);
    return started;
  }

  async function endpoint(url: string, eventTypes?: string[]): Promise<WebhookEndpointBody> {
    const created = await createEndpoint(admin, { url, ...(eventTypes ? { eventTypes } : {}) });
    endpoints.push(created.webhookEndpointId);
    return created;
  }

  async function deliveryOf(endpointId: string, eventId: string): Promise<WebhookDeliveryBody | undefined> {
    return (await deliveriesOf(admin, `webhookEndpointId=${endpointId}&eventId=${eventId}`))[0];
  }

  async function ended(endpointId: string, eventId: string): Promise<WebhookDeliveryBody> {
    return until(`delivery of ${eventId} to end`, async () => {
      const delivery = await deliveryOf(endpointId, eventId);
      return delivery && delivery.status !== 'PENDING' ? delivery : undefined;
    });
  }

  it('a delivery is signed by the Standard Webhooks rules: the library verifies it, webhook-id is the event', async () => {
    const target = await receiver();
    const subscribed = await endpoint(target.url(), ['ORDER_CREATED']);
    const eventId = await recordEvent(t, 'ORDER_CREATED');

    const [request] = await until('the delivery', () =>
      target.requests.length > 0 ? target.requests : undefined,
    );
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['webhook-id']).toBe(eventId);
    expect(Number(request.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -1);
    expect(verifyWebhook(subscribed.secret, request)).toMatchObject({ eventId, type: 'ORDER_CREATED' });
    expect(() => verifyWebhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, request)).toThrow();
    // The body is the event exactly as the feed serves it.
    const served = await admin('GET', `/api/v1/events/${eventId}`);
    expect(served.statusCode).toBe(200);
    expect(request.body.toString('utf8')).toBe(served.body);

    const delivery = await ended(subscribed.webhookEndpointId, eventId);
    expect(delivery).toMatchObject({
      eventId,
      eventType: 'ORDER_CREATED',
      status: 'SUCCEEDED',
      attempts: 1,
      lastResponseStatus: 204,
    });
    expect(delivery.nextAttemptAt).toBeUndefined();
    const one = await admin('GET', `${WEBHOOK_DELIVERIES}/${delivery.deliveryId}`);
    expect(one.json()).toEqual(delivery);
  });

  it('an order created through the API is delivered: its ORDER_CREATED event with the order as data', async () => {
    const target = await receiver();
    const subscribed = await endpoint(target.url(), ['ORDER_CREATED']);
    const customer = await customerClient(t);
    const order = await createOrder(customer);
    const [request] = await until('the delivery', () =>
      target.requests.length > 0 ? target.requests : undefined,
    );
    const event = verifyWebhook(subscribed.secret, request) as {
      eventId: string;
      type: string;
      data: unknown;
    };
    expect(event).toMatchObject({ type: 'ORDER_CREATED', orderId: order.orderId, data: order });
    expect(request.headers['webhook-id']).toBe(event.eventId);
    expect(request.body.toString('utf8')).toBe((await admin('GET', `/api/v1/events/${event.eventId}`)).body);
  });

  it('an event goes to the ENABLED endpoints subscribed to its type when it happens, to no other', async () => {
    const target = await receiver();
    const all = await endpoint(target.url('/all'));
    const other = await endpoint(target.url('/other'), ['TASK_FAILED']);
    const disabled = await endpoint(target.url('/disabled'));
    await admin('POST', `${WEBHOOK_ENDPOINTS}/${disabled.webhookEndpointId}/disable`);
    const eventId = await recordEvent(t, 'ORDER_SHIPPED');
    const later = await endpoint(target.url('/later'));

    // The fan-out creates an event's deliveries in one transaction: once one has ended, all exist.
    await ended(all.webhookEndpointId, eventId);
    const delivered = await deliveriesOf(admin, `eventId=${eventId}`);
    expect(delivered.map((d) => d.webhookEndpointId)).toEqual([all.webhookEndpointId]);
    expect(target.requests.map((r) => r.url)).toEqual(['/all']);
    for (const none of [other, disabled, later]) {
      expect(await deliveriesOf(admin, `webhookEndpointId=${none.webhookEndpointId}`)).toEqual([]);
    }
  });

  it('retries by the schedule, waiting at least Retry-After on 503; the same webhook-id every time', async () => {
    let answered = 0;
    const target = await receiver((_, response) => {
      answered += 1;
      if (answered === 1) response.writeHead(503, { 'retry-after': '1' }).end();
      else if (answered === 2) response.writeHead(500).end();
      else response.writeHead(200).end('ok');
    });
    const subscribed = await endpoint(target.url());
    const eventId = await recordEvent(t, 'ORDER_CONFIRMED');
    const delivery = await ended(subscribed.webhookEndpointId, eventId);
    expect(delivery).toMatchObject({ status: 'SUCCEEDED', attempts: 3, lastResponseStatus: 200 });
    expect(target.requests.map((r) => r.headers['webhook-id'])).toEqual([eventId, eventId, eventId]);
    const [first, second] = target.requests.map((r) => Number(r.headers['webhook-timestamp']));
    expect(second - first).toBeGreaterThanOrEqual(1);
    for (const request of target.requests) verifyWebhook(subscribed.secret, request);
  });

  it('FAILED after the last attempt; a manual retry makes one more attempt; retrying a PENDING one is 409', async () => {
    let failing = true;
    const target = await receiver((_, response) => response.writeHead(failing ? 500 : 204).end());
    const subscribed = await endpoint(target.url());
    const eventId = await recordEvent(t, 'ORDER_CANCELLED');
    const failed = await ended(subscribed.webhookEndpointId, eventId);
    expect(failed).toMatchObject({
      status: 'FAILED',
      attempts: 3,
      lastError: 'HTTP_STATUS',
      lastResponseStatus: 500,
    });

    failing = false;
    const retried = await admin('POST', `${WEBHOOK_DELIVERIES}/${failed.deliveryId}/retry`);
    expect(retried.statusCode).toBe(200);
    expect(retried.json()).toMatchObject({ status: 'PENDING', attempts: 3 });
    const again = await admin('POST', `${WEBHOOK_DELIVERIES}/${failed.deliveryId}/retry`);
    const pendingOrEnded = (
      await admin('GET', `${WEBHOOK_DELIVERIES}/${failed.deliveryId}`)
    ).json<WebhookDeliveryBody>();
    if (again.statusCode !== 200) expectProblem(again, 409, 'INVALID_DELIVERY_STATE');
    expect(['PENDING', 'SUCCEEDED']).toContain(pendingOrEnded.status);

    const succeeded = await ended(subscribed.webhookEndpointId, eventId);
    expect(succeeded).toMatchObject({ status: 'SUCCEEDED', lastResponseStatus: 204 });
    expect(new Set(target.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([eventId]));
  });

  it('410 Gone disables the endpoint at once (GONE); its deliveries cannot be retried while disabled', async () => {
    const target = await receiver((_, response) => response.writeHead(410).end());
    const subscribed = await endpoint(target.url());
    const eventId = await recordEvent(t, 'ORDER_DELIVERED');
    const failed = await ended(subscribed.webhookEndpointId, eventId);
    expect(failed).toMatchObject({ status: 'FAILED', attempts: 1, lastResponseStatus: 410 });
    const read = await admin('GET', `${WEBHOOK_ENDPOINTS}/${subscribed.webhookEndpointId}`);
    expect(read.json()).toMatchObject({ status: 'DISABLED', disabledReason: 'GONE' });
    expectProblem(
      await admin('POST', `${WEBHOOK_DELIVERIES}/${failed.deliveryId}/retry`),
      409,
      'INVALID_DELIVERY_STATE',
    );
    // Disabled: a new event is not sent to it.
    const next = await recordEvent(t, 'ORDER_DELIVERED');
    expect(await deliveryOf(subscribed.webhookEndpointId, next)).toBeUndefined();
  });

  it('ten deliveries in a row ending FAILED disable the endpoint (CONSECUTIVE_FAILURES); a success resets the count', async () => {
    let succeedOnce = false;
    const target = await receiver((_, response) => {
      response.writeHead(succeedOnce ? 204 : 500).end();
      succeedOnce = false;
    });
    const subscribed = await endpoint(target.url());
    const path = `${WEBHOOK_ENDPOINTS}/${subscribed.webhookEndpointId}`;
    const nine = await Promise.all(Array.from({ length: 9 }, () => recordEvent(t, 'ORDER_UPDATED')));
    for (const eventId of nine) await ended(subscribed.webhookEndpointId, eventId);
    expect((await admin('GET', path)).json()).toMatchObject({ status: 'ENABLED' });

    succeedOnce = true;
    await ended(subscribed.webhookEndpointId, await recordEvent(t, 'ORDER_UPDATED'));
    const nineMore = await Promise.all(Array.from({ length: 9 }, () => recordEvent(t, 'ORDER_UPDATED')));
    for (const eventId of nineMore) await ended(subscribed.webhookEndpointId, eventId);
    expect((await admin('GET', path)).json()).toMatchObject({ status: 'ENABLED' });

    await ended(subscribed.webhookEndpointId, await recordEvent(t, 'ORDER_UPDATED'));
    expect((await admin('GET', path)).json()).toMatchObject({
      status: 'DISABLED',
      disabledReason: 'CONSECUTIVE_FAILURES',
    });
  });

  it('one delivery at a time to an endpoint until an attempt succeeds, then at most ten; a stalled one holds up only itself', async () => {
    const held: http.ServerResponse[] = [];
    // Requests still waiting for an answer (an attempt that timed out has closed its own).
    const waiting = () => held.filter((response) => !response.writableEnded && !response.destroyed);
    const stalled = await receiver((_, response) => held.push(response));
    const healthy = await receiver();
    const slow = await endpoint(stalled.url(), ['TASK_COMPLETED']);
    const fast = await endpoint(healthy.url(), ['TASK_COMPLETED']);
    const events = [];
    for (let i = 0; i < 15; i++) events.push(await recordEvent(t, 'TASK_COMPLETED'));

    await until('the healthy endpoint to get all 15', () =>
      healthy.requests.length >= 15 ? true : undefined,
    );
    // Unproven, the stalled endpoint has had one delivery in flight at a time: the others wait.
    expect(waiting()).toHaveLength(1);
    expect(new Set(stalled.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);

    // Its attempt succeeds: the endpoint is proven, and up to ten go at once.
    waiting()[0].writeHead(204).end();
    await until('ten requests in flight to the endpoint', () => (waiting().length >= 10 ? true : undefined));
    expect(waiting()).toHaveLength(10);

    const release = setInterval(() => {
      for (const response of waiting()) response.writeHead(204).end();
    }, 20);
    try {
      for (const eventId of events) {
        expect(await ended(slow.webhookEndpointId, eventId)).toMatchObject({ status: 'SUCCEEDED' });
      }
    } finally {
      clearInterval(release);
    }
    expect(new Set(stalled.requests.map((r) => r.headers['webhook-id'])).size).toBe(15);
    expect(fast.status).toBe('ENABLED');
  });

  it('after rotate-secret a delivery verifies with the old and with the new secret', async () => {
    const target = await receiver();
    const subscribed = await endpoint(target.url());
    const rotated = (
      await admin('POST', `${WEBHOOK_ENDPOINTS}/${subscribed.webhookEndpointId}/rotate-secret`, {
        body: { oldSecretExpiresInSeconds: 3600 },
      })
    ).json<WebhookEndpointBody>();
    const eventId = await recordEvent(t, 'ORDER_REFUNDED');
    await ended(subscribed.webhookEndpointId, eventId);
    const [request] = target.requests;
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyWebhook(rotated.secret, request)).toMatchObject({ eventId });
    expect(verifyWebhook(subscribed.secret, request)).toMatchObject({ eventId });

    // With no overlap the old secret signs no more.
    const again = (
      await admin('POST', `${WEBHOOK_ENDPOINTS}/${subscribed.webhookEndpointId}/rotate-secret`, {
        body: { oldSecretExpiresInSeconds: 0 },
      })
    ).json<WebhookEndpointBody>();
    const next = await recordEvent(t, 'ORDER_REFUNDED');
    await ended(subscribed.webhookEndpointId, next);
    const last = target.requests[target.requests.length - 1];
    expect(String(last.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifyWebhook(again.secret, last)).toMatchObject({ eventId: next });
    expect(() => verifyWebhook(rotated.secret, last)).toThrow();
  });

  it('deleting an endpoint drops its pending deliveries', async () => {
    const held: http.ServerResponse[] = [];
    const stalled = await receiver((_, response) => held.push(response));
    const subscribed = await endpoint(stalled.url());
    const events = await Promise.all(Array.from({ length: 12 }, () => recordEvent(t, 'ORDER_DELETED')));
    // Unproven, the endpoint has one delivery in flight; the other eleven wait in PostgreSQL.
    await until('one in flight', () => (held.length >= 1 ? true : undefined));
    expect((await admin('DELETE', `${WEBHOOK_ENDPOINTS}/${subscribed.webhookEndpointId}`)).statusCode).toBe(
      204,
    );
    for (const response of held.splice(0)) response.writeHead(204).end();
    for (const eventId of events)
      expect(await deliveryOf(subscribed.webhookEndpointId, eventId)).toBeUndefined();
    expect(stalled.requests.length).toBe(1);
  });
});
