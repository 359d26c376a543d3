import { AppException } from '../problem/app-exception';
import { canonicalJson, idempotencyKeyOf, requestFingerprint } from './request-fingerprint';

const KEY = '5B9E1C1A-3D4F-4A2B-9C8D-7E6F5A4B3C2D';

function violationOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error: unknown) {
    if (error instanceof AppException) return error.options.violations;
    throw error;
  }
  throw new Error('expected a validation error');
}

describe('idempotencyKeyOf', () => {
  it('returns a uuid key in lower case', () => {
    expect(idempotencyKeyOf(` ${KEY} `, true)).toBe(KEY.toLowerCase());
  });

  it('no key on a route that does not require one: undefined', () => {
    expect(idempotencyKeyOf(undefined, false)).toBeUndefined();
    expect(idempotencyKeyOf('  ', false)).toBeUndefined();
  });

  it('no key on a route that requires one: REQUIRED on Idempotency-Key', () => {
    expect(violationOf(() => idempotencyKeyOf(undefined, true))).toEqual([
      { field: 'Idempotency-Key', code: 'REQUIRED' },
    ]);
  });

  it.each([
    ['not a uuid', 'order-42', false],
    ['not a uuid, required', 'order-42', true],
    ['two keys', [KEY, KEY], false],
  ])('%s: INVALID_FORMAT on Idempotency-Key', (_case, header, required) => {
    expect(violationOf(() => idempotencyKeyOf(header, required))).toEqual([
      { field: 'Idempotency-Key', code: 'INVALID_FORMAT', args: { format: 'uuid' } },
    ]);
  });
});

describe('canonicalJson', () => {
  it('sorts object keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { f: 1, e: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"e":2,"f":1}]},"b":1}',
    );
  });

  it('no body is the empty string, unlike an empty object', () => {
    expect(canonicalJson(undefined)).toBe('');
    expect(canonicalJson({})).toBe('{}');
  });

  it('escapes keys and strings as JSON does', () => {
    expect(canonicalJson({ 'a"b': 'c\nd' })).toBe('{"a\\"b":"c\\nd"}');
  });
});

describe('requestFingerprint', () => {
  const body = {
    items: [
      { productId: 'p', quantity: 1 },
      { productId: 'q', quantity: 2 },
    ],
    note: 'x',
  };

  it('is a sha256 hex digest, equal for the same method, path and body in any key order', () => {
    const fingerprint = requestFingerprint('POST', '/api/v1/orders', body);
    expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(
      requestFingerprint('post', '/api/v1/orders', {
        note: 'x',
        items: [
          { quantity: 1, productId: 'p' },
          { quantity: 2, productId: 'q' },
        ],
      }),
    ).toBe(fingerprint);
  });

  it.each([
    ['method', () => requestFingerprint('PATCH', '/api/v1/orders', body)],
    ['path', () => requestFingerprint('POST', '/api/v1/orders/1/items', body)],
    ['query', () => requestFingerprint('POST', '/api/v1/orders?dryRun=true', body)],
    ['body', () => requestFingerprint('POST', '/api/v1/orders', { ...body, note: 'y' })],
    [
      'array order',
      () => requestFingerprint('POST', '/api/v1/orders', { ...body, items: [...body.items].reverse() }),
    ],
    ['no body', () => requestFingerprint('POST', '/api/v1/orders', undefined)],
  ])('differs when the %s differs', (_case, other) => {
    expect(other()).not.toBe(requestFingerprint('POST', '/api/v1/orders', body));
  });
});
