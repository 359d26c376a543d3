import { createHmac } from 'node:crypto';
import { webhookSigningKey } from './webhook-secret';

/** The Standard Webhooks headers of one attempt (names lower-case, as sent). */
export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * The Standard Webhooks headers of a message: its id (the same on every attempt, receivers dedupe by it),
 * the attempt's time in Unix seconds, and one `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` per
 * secret still valid, space-separated, so a receiver verifies with the old or the new secret while a secret
 * is rotated.
 */
export function webhookHeaders(
  secrets: readonly string[],
  webhookId: string,
  timestampSeconds: number,
  body: Buffer,
): WebhookHeaders {
  if (secrets.length === 0) throw new Error('a webhook is signed with at least one secret');
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError(`the timestamp must be whole Unix seconds (got ${timestampSeconds})`);
  }
  const timestamp = String(timestampSeconds);
  const signed = `${webhookId}.${timestamp}.`;
  const signatures = secrets.map(
    (secret) =>
      `v1,${createHmac('sha256', webhookSigningKey(secret)).update(signed).update(body).digest('base64')}`,
  );
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': timestamp,
    'webhook-signature': signatures.join(' '),
  };
}
