import { createHmac, randomBytes } from 'node:crypto';
import { verifyWebhook, WebhookVerificationError } from '@order-service/client';

/**
 * A delivery signed as the Standard Webhooks specification says, computed here from the specification
 * rather than with the library verifyWebhook is built on: `v1,` + base64 HMAC-SHA256 of
 * `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the secret after `whsec_`.
 */
function signed(secret: string, body: string, at = new Date(), id = 'f0a5e2c4-8b1d-4e6f-9a3c-2d7b5e8f1a4c') {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const event = { eventId: 'f0a5e2c4-8b1d-4e6f-9a3c-2d7b5e8f1a4c', type: 'ORDER_CONFIRMED', sequence: 42 };
const body = JSON.stringify(event);

describe('verifyWebhook', () => {
  const secret = newSecret();

  it('returns the event of a delivery signed with the secret', () => {
    expect(verifyWebhook(secret, signed(secret, body), body)).toEqual(event);
  });

  it('takes the body as bytes (a Buffer) and the headers as Node gives them or as fetch Headers', () => {
    const headers = signed(secret, body);
    expect(verifyWebhook(secret, headers, Buffer.from(body))).toEqual(event);
    expect(verifyWebhook(secret, new Headers(headers), new TextEncoder().encode(body))).toEqual(event);
    const upperCase = Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]),
    );
    expect(verifyWebhook(secret, upperCase, body)).toEqual(event);
  });

  it('accepts a delivery that carries a signature per secret while a rotated one is still valid', () => {
    const old = newSecret();
    const headers = signed(secret, body);
    const rotated = {
      ...headers,
      'webhook-signature': `${signed(old, body)['webhook-signature']} ${headers['webhook-signature']}`,
    };
    expect(verifyWebhook(secret, rotated, body)).toEqual(event);
    expect(verifyWebhook(old, rotated, body)).toEqual(event);
  });

  it.each([
    ['another secret', () => verifyWebhook(newSecret(), signed(secret, body), body)],
    ['a changed body', () => verifyWebhook(secret, signed(secret, body), body.replace('42', '43'))],
    [
      'a body parsed and serialized again',
      () => verifyWebhook(secret, signed(secret, body), JSON.stringify(event, null, 2)),
    ],
    [
      'another webhook-id',
      () => verifyWebhook(secret, { ...signed(secret, body), 'webhook-id': 'another' }, body),
    ],
    [
      'a timestamp over five minutes old',
      () => verifyWebhook(secret, signed(secret, body, new Date(Date.now() - 6 * 60_000)), body),
    ],
    [
      'a timestamp over five minutes ahead',
      () => verifyWebhook(secret, signed(secret, body, new Date(Date.now() + 6 * 60_000)), body),
    ],
    [
      'no signature header',
      () => verifyWebhook(secret, { 'webhook-id': 'x', 'webhook-timestamp': '1' }, body),
    ],
  ])('refuses %s with WebhookVerificationError', (_case, verify) => {
    expect(verify).toThrow(WebhookVerificationError);
  });

  it('throws a plain error for a secret that is not one, as the programming error it is', () => {
    expect(() => verifyWebhook('whsec_', signed(secret, body), body)).toThrow(Error);
    expect(() => verifyWebhook('whsec_', signed(secret, body), body)).not.toThrow(WebhookVerificationError);
  });
});
