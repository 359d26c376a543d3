import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { WebhookFanOut } from '../../src/webhooks/webhook-fan-out.service';
import { ApiClient, bodyWithStatus } from './http-client';
import { TestApp } from './test-app';

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

/** Polls `probe` until it gives a value (not undefined) or the deadline passes. */
export async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function createEndpoint(
  admin: ApiClient,
  body: { url: string; eventTypes?: string[] },
): Promise<WebhookEndpointBody> {
  return bodyWithStatus(await admin('POST', WEBHOOK_ENDPOINTS, { body }), 201, 'create endpoint');
}

/**
 * Records an event's deliveries the way an event's transaction does (until the tests record real events
 * through the API, the fan-out is called in a transaction of the test's own); its id.
 */
export async function recordEvent(t: TestApp, type: string, eventId: string = randomUUID()): Promise<string> {
  const fanOut = t.app.get(WebhookFanOut);
  await t.app.get(DataSource).transaction((db) => fanOut.forEvent(db, { eventId, type }));
  return eventId;
}

export async function deliveriesOf(admin: ApiClient, query: string): Promise<WebhookDeliveryBody[]> {
  return bodyWithStatus<{ content: WebhookDeliveryBody[] }>(
    await admin('GET', `${WEBHOOK_DELIVERIES}?size=100&${query}`),
    200,
    'list deliveries',
  ).content;
}
