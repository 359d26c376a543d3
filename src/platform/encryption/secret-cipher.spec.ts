import { randomBytes } from 'node:crypto';
import { SecretCipher, SecretCipherError } from './secret-cipher';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYq=';
const ENDPOINT = '0b4d7a8e-59a4-4e8b-9b1e-2a6c1c3f5d77';

describe('SecretCipher (AES-256-GCM, versioned, keyed by id)', () => {
  const key = randomBytes(32);
  const cipher = new SecretCipher([key]);

  it('seals into a versioned text that opens for the same context only', () => {
    const sealed = cipher.seal(SECRET, ENDPOINT);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(SECRET.slice(6, 20));
    expect(cipher.open(sealed, ENDPOINT)).toBe(SECRET);
    expect(() => cipher.open(sealed, 'another-endpoint')).toThrow(SecretCipherError);
  });

  it('uses a fresh nonce each time', () => {
    expect(cipher.seal(SECRET, ENDPOINT)).not.toBe(cipher.seal(SECRET, ENDPOINT));
  });

  it('refuses a value altered anywhere', () => {
    const sealed = cipher.seal(SECRET, ENDPOINT);
    const [format, keyId, payload] = sealed.split('.');
    const bytes = Buffer.from(payload, 'base64url');
    for (const at of [0, 12, bytes.length - 1]) {
      const altered = Buffer.from(bytes);
      altered[at] ^= 1;
      expect(() => cipher.open(`${format}.${keyId}.${altered.toString('base64url')}`, ENDPOINT)).toThrow(
        SecretCipherError,
      );
    }
    expect(() => cipher.open(`v2.${keyId}.${payload}`, ENDPOINT)).toThrow(/known format/);
    expect(() => cipher.open(`${format}.${keyId}.${payload}.x`, ENDPOINT)).toThrow(/known format/);
    expect(() => cipher.open(`${format}.${keyId}.AAAA`, ENDPOINT)).toThrow(/truncated/);
    expect(() => cipher.open('plain text', ENDPOINT)).toThrow(SecretCipherError);
  });

  it('opens values of an earlier key it is given, and seals with the first', () => {
    const next = new SecretCipher([randomBytes(32), key]);
    const old = cipher.seal(SECRET, ENDPOINT);
    expect(next.open(old, ENDPOINT)).toBe(SECRET);
    const fresh = next.seal(SECRET, ENDPOINT);
    expect(fresh.split('.')[1]).not.toBe(old.split('.')[1]);
    expect(() => cipher.open(fresh, ENDPOINT)).toThrow(/unknown key/);
  });

  it('takes 32-byte keys only', () => {
    expect(() => new SecretCipher([])).toThrow(RangeError);
    expect(() => new SecretCipher([randomBytes(16)])).toThrow(RangeError);
  });
});
