import { randomBytes } from 'node:crypto';

/**
 * Webhook signing secrets in the Standard Webhooks form: `whsec_` and the base64 of the key's bytes. The
 * bytes after the prefix, decoded, are the HMAC key; receivers' libraries take the whole string. This service
 * makes keys of 32 random bytes; it signs with any key the specification allows (24 to 64 bytes).
 */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
const GENERATED_KEY_BYTES = 32;
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A new secret, shown once to the endpoint's owner and stored only encrypted. */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(GENERATED_KEY_BYTES).toString('base64');
}

/** The HMAC key of `secret` (the base64-decoded part after `whsec_`), or undefined when it is not a secret. */
function signingKeyOf(secret: string): Buffer | undefined {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) return undefined;
  const encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  if (!BASE64.test(encoded)) return undefined;
  const key = Buffer.from(encoded, 'base64');
  return key.length >= MIN_KEY_BYTES && key.length <= MAX_KEY_BYTES ? key : undefined;
}

/** Whether `text` is a webhook secret (`whsec_` and the base64 of 24 to 64 bytes). */
export function isWebhookSecret(text: string): boolean {
  return signingKeyOf(text) !== undefined;
}

/** The HMAC key of `secret`: the base64-decoded part after `whsec_`. */
export function webhookSigningKey(secret: string): Buffer {
  const key = signingKeyOf(secret);
  // The message never shows the value: a secret must not reach a log, even a malformed one.
  if (key === undefined) throw new Error('not a webhook secret (whsec_ and the base64 of 24 to 64 bytes)');
  return key;
}
