import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/**
 * Encrypts secrets kept at rest (webhook signing secrets, and stored answers that carry one): AES-256-GCM with
 * a random 96-bit nonce per value, bound by associated data to the context it belongs to (e.g. the endpoint's
 * id), so a value copied to another row does not open there.
 *
 * Sealed form: `v1.<key id>.<base64url of nonce ‖ ciphertext ‖ tag>`. `v1` names this format; the key id
 * names the key, so that a key can be replaced later while values sealed with the previous one still open:
 * the first key seals, every key given opens what it sealed.
 */
const FORMAT = 'v1';
const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export class SecretCipherError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretCipherError';
  }
}

export class SecretCipher {
  private readonly keys: ReadonlyMap<string, Buffer>;
  private readonly sealingKeyId: string;

  /** `keys[0]` seals; all of them open. Each key is 32 bytes. */
  constructor(keys: readonly Buffer[]) {
    if (keys.length === 0) throw new RangeError('a secret cipher needs a key');
    const byId = new Map<string, Buffer>();
    for (const key of keys) {
      if (key.length !== KEY_BYTES) throw new RangeError(`a secret cipher key is ${KEY_BYTES} bytes`);
      byId.set(keyIdOf(key), key);
    }
    this.keys = byId;
    this.sealingKeyId = keyIdOf(keys[0]);
  }

  seal(plaintext: string, context: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.keys.get(this.sealingKeyId) as Buffer, nonce);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const payload = Buffer.concat([nonce, ciphertext, cipher.getAuthTag()]).toString('base64url');
    return `${FORMAT}.${this.sealingKeyId}.${payload}`;
  }

  /** The plaintext of `sealed`; throws SecretCipherError when it is malformed, tampered with, sealed with an
   * unknown key or for another context. */
  open(sealed: string, context: string): string {
    const [format, keyId, payload, extra] = sealed.split('.');
    if (format !== FORMAT || payload === undefined || extra !== undefined) {
      throw new SecretCipherError('not a sealed secret of a known format');
    }
    const key = this.keys.get(keyId);
    if (key === undefined) throw new SecretCipherError(`sealed with an unknown key (${keyId})`);
    const bytes = Buffer.from(payload, 'base64url');
    if (bytes.length < NONCE_BYTES + TAG_BYTES) throw new SecretCipherError('sealed secret is truncated');
    const decipher = createDecipheriv(ALGORITHM, key, bytes.subarray(0, NONCE_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    try {
      return Buffer.concat([
        decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new SecretCipherError('sealed secret does not open: altered, or sealed for another context');
    }
  }
}

/** A short public name of a key (an HMAC of a constant, so it tells nothing of the key). */
function keyIdOf(key: Buffer): string {
  return createHmac('sha256', key)
    .update('order-service secret key id')
    .digest()
    .subarray(0, 6)
    .toString('base64url');
}
