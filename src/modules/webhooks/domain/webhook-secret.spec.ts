import { generateWebhookSecret, isWebhookSecret, webhookSigningKey } from './webhook-secret';

describe('webhook secrets', () => {
  it('are whsec_ and the base64 of 32 random bytes, never twice the same', () => {
    const secrets = Array.from({ length: 100 }, generateWebhookSecret);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(webhookSigningKey(secret)).toHaveLength(32);
    }
    expect(new Set(secrets).size).toBe(secrets.length);
  });

  it('key the HMAC with the decoded bytes after the prefix', () => {
    const key = Buffer.from('00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff', 'hex');
    expect(webhookSigningKey(`whsec_${key.toString('base64')}`)).toEqual(key);
  });

  it('may be any key of 24 to 64 bytes the specification allows', () => {
    expect(isWebhookSecret(`whsec_${Buffer.alloc(24, 1).toString('base64')}`)).toBe(true);
    expect(isWebhookSecret(`whsec_${Buffer.alloc(64, 1).toString('base64')}`)).toBe(true);
  });

  it.each([
    ['no prefix', Buffer.alloc(32, 1).toString('base64')],
    ['another prefix', `whsek_${Buffer.alloc(32, 1).toString('base64')}`],
    ['too short a key', `whsec_${Buffer.alloc(23, 1).toString('base64')}`],
    ['too long a key', `whsec_${Buffer.alloc(65, 1).toString('base64')}`],
    ['not base64', 'whsec_!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!='],
    ['base64url', `whsec_${Buffer.alloc(32, 0xfb).toString('base64url')}`],
    ['empty', 'whsec_'],
  ])('refuses %s, without showing it', (_, text) => {
    expect(isWebhookSecret(text)).toBe(false);
    expect(() => webhookSigningKey(text)).toThrow(/^not a webhook secret/);
    try {
      webhookSigningKey(text);
    } catch (error) {
      if (text.length > 6) expect((error as Error).message).not.toContain(text.slice(6));
    }
  });
});
