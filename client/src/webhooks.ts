import { Webhook } from 'standardwebhooks';
import type { components } from './generated/openapi.js';

/** The event a webhook delivery carries, exactly as `GET /api/v1/events/{eventId}` serves it. */
export type WebhookEvent = components['schemas']['Event'];

/** The headers of the delivery: a fetch `Headers`, or a plain object such as Node's `request.headers`. */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

/** The delivery is not one the service signed with this secret, or is too old or too new to accept. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

const SIGNED_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/**
 * Checks a webhook delivery (Standard Webhooks: `webhook-id`, `webhook-timestamp` within five minutes of
 * now, `webhook-signature` with any of the endpoint's current secrets) and returns its event; throws
 * `WebhookVerificationError` otherwise. `rawBody` is the body exactly as received, before any JSON parsing:
 * re-serialized JSON does not verify. Deduplicate deliveries by `webhook-id`: one event may arrive twice.
 */
export function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  rawBody: string | Uint8Array,
): WebhookEvent {
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  const signed = Object.fromEntries(SIGNED_HEADERS.map((name) => [name, headerValue(headers, name)]));
  // A secret that is not `whsec_` + base64 throws here, as the programming error it is.
  const webhook = new Webhook(secret);
  try {
    // Signed by the service with this secret: the body is an event as the service serves it.
    return webhook.verify(body, signed) as WebhookEvent;
  } catch (error) {
    throw new WebhookVerificationError(error instanceof Error ? error.message : String(error), {
      cause: error,
    });
  }
}

function headerValue(headers: WebhookHeaders, name: string): string {
  if (headers instanceof Headers) return headers.get(name) ?? '';
  const value = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return typeof value === 'string' ? value : (value?.join(' ') ?? '');
}
