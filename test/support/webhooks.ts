import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { EventSubscribers } from '../../src/modules/events/event-subscribers.service';
import { ApiClient, bodyWithStatus } from './http-client';
import { TestApp } from './test-app';

/** Polls a probe until it gives a value (not undefined): the tests' one way of waiting. */
export { eventually as until } from './wait';

export const WEBHOOK_ENDPOINTS = '/api/v1/webhook-endpoints';
export const WEBHOOK_DELIVERIES = '/api/v1/webhook-deliveries';

export interface WebhookEndpointBody {
  webhookEndpointId: string;
  url: string;
  status: 'ENABLED' | 'DISABLED';
  disabledReason?: string;
  secret: string;
}

export interface WebhookDeliveryBody {
  deliveryId: string;
  webhookEndpointId: string;
  eventId: string;
  eventType: string;
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED';
  attempts: number;
  lastResponseStatus?: number;
  lastError?: string;
  nextAttemptAt?: string;
}

export async function createEndpoint(
  admin: ApiClient,
  body: { url: string; eventTypes?: string[] },
): Promise<WebhookEndpointBody> {
  return bodyWithStatus(await admin('POST', WEBHOOK_ENDPOINTS, { body }), 201, 'create endpoint');
}

/**
 * Records an event as a writer of events does (one row of `events`, in a statement of its own) and wakes
 * the event subscribers as the recorder's listeners are (the fan-out creates its deliveries); its id. The
 * event's `data` is a stand-in: what a delivery carries is whatever the feed serves for it.
 */
export async function recordEvent(t: TestApp, type: string, eventId: string = randomUUID()): Promise<string> {
  const subject = type.startsWith('TASK_') ? 'task_id' : 'order_id';
  await t.app
    .get(DataSource)
    .query(`INSERT INTO events (event_id, type, ${subject}, data) VALUES ($1, $2, gen_random_uuid(), $3)`, [
      eventId,
      type,
      { recordedBy: 'test' },
    ]);
  t.app.get(EventSubscribers).wake();
  return eventId;
}

export async function deliveriesOf(admin: ApiClient, query: string): Promise<WebhookDeliveryBody[]> {
  return bodyWithStatus<{ content: WebhookDeliveryBody[] }>(
    await admin('GET', `${WEBHOOK_DELIVERIES}?size=100&${query}`),
    200,
    'list deliveries',
  ).content;
}
