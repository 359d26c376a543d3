import { createHmac } from 'node:crypto';
import { webhookHeaders } from './webhook-signature';

describe('webhookHeaders (Standard Webhooks)', () => {
  it("signs the specification's own example", () => {
    // The example of the Standard Webhooks specification: secret, id, timestamp, body and its signature.
    const headers = webhookHeaders(
      ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      Buffer.from('{"test": 2432232314}'),
    );
    expect(headers).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('signs "{id}.{timestamp}.{body}" over the exact body bytes, with the decoded key', () => {
    const key = Buffer.alloc(32, 7);
    const body = Buffer.from('{"name":"Grüße","emoji":"🚀"}', 'utf8');
    const id = '3f0c1f9e-7f36-4c5e-9a53-6f1d2a9a0b11';
    const expected = createHmac('sha256', key)
      .update(Buffer.concat([Buffer.from(`${id}.1700000000.`), body]))
      .digest('base64');
    expect(
      webhookHeaders([`whsec_${key.toString('base64')}`], id, 1700000000, body)['webhook-signature'],
    ).toBe(`v1,${expected}`);
  });

  it('carries one signature per secret still valid, space-separated, in the order given', () => {
    const [a, b] = [Buffer.alloc(32, 1), Buffer.alloc(32, 2)];
    const body = Buffer.from('{}');
    const sign = (key: Buffer) => `v1,${createHmac('sha256', key).update('id.5.{}').digest('base64')}`;
    expect(
      webhookHeaders([`whsec_${a.toString('base64')}`, `whsec_${b.toString('base64')}`], 'id', 5, body)[
        'webhook-signature'
      ],
    ).toBe(`${sign(a)} ${sign(b)}`);
  });

  it('needs a secret and whole seconds', () => {
    expect(() => webhookHeaders([], 'id', 1, Buffer.from('{}'))).toThrow(/at least one secret/);
    expect(() =>
      webhookHeaders(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'], 'id', 1.5, Buffer.from('{}')),
    ).toThrow(RangeError);
  });
});
