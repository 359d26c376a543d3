import { LightMyRequestResponse } from 'fastify';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { IdempotencyCleanup } from '../src/platform/idempotency/idempotency.cleanup';
import { requestFingerprint } from '../src/platform/idempotency/request-fingerprint';
import { adminClient, customerClient } from './support/callers';
import { createProduct } from './support/products';
import { ApiClient, apiClient, MERGE_PATCH, withIdempotencyKey } from './support/http-client';
import {
  IDEMPOTENCY_PROBE_PATH as PROBE,
  IdempotencyProbeModule,
  PROBE_EFFECTS_TABLE_SQL,
  ProbeFailures,
  ProbeGate,
} from './support/probes/idempotency.probe';
import { expectProblem } from './support/problem';
import { bootTestApp, TestApp } from './support/test-app';
import { callerToken } from './support/tokens';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

describe('Idempotency-Key', () => {
  let t: TestApp;
  let db: DataSource;
  let alice: ApiClient;
  let aliceId: string;
  let aliceAuthorization: string;
  let bob: ApiClient;
  let anonymous: ApiClient;
  const label = () => `effect-${randomUUID()}`;

  async function effects(name: string): Promise<number> {
    const [row] = (await db.query(
      'SELECT count(*)::int AS count FROM idempotency_probe_effects WHERE label = $1',
      [name],
    )) as Array<{ count: number }>;
    return row.count;
  }

  function expectReplayOf(replay: LightMyRequestResponse, original: LightMyRequestResponse): void {
    expect(replay.statusCode).toBe(original.statusCode);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(original.body);
    for (const header of ['content-type', 'location', 'etag', 'content-language']) {
      expect(replay.headers[header]).toBe(original.headers[header]);
    }
  }

  beforeAll(async () => {
    // Behind a proxy (TRUST_PROXY): the client address of a public route comes from X-Forwarded-For.
    t = await bootTestApp({ TRUST_PROXY: 'true' }, [IdempotencyProbeModule]);
    db = t.app.get(DataSource);
    await db.query(PROBE_EFFECTS_TABLE_SQL);
    const aliceToken = await callerToken(t.config);
    aliceId = aliceToken.sub;
    aliceAuthorization = aliceToken.authorization;
    alice = apiClient(t, aliceToken.authorization);
    bob = await customerClient(t);
    anonymous = apiClient(t);
  });
  afterAll(() => t.close());

  describe('replay', () => {
    it('replays the first response (status, Location, ETag, body) for the same key and body', async () => {
      const key = randomUUID();
      const body = { label: label(), quantity: 2 };
      const first = await alice('POST', `${PROBE}/effects`, { body, headers: withIdempotencyKey(key) });
      expect(first.statusCode).toBe(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const created = first.json();
      expect(created).toEqual({
        effectId: expect.any(String),
        label: body.label,
        quantity: 2,
        createdAt: expect.stringMatching(TIMESTAMP),
      });
      expect(first.headers.location).toBe(`${PROBE}/effects/${created.effectId}`);

      const again = await alice('POST', `${PROBE}/effects`, { body, headers: withIdempotencyKey(key) });
      expectReplayOf(again, first);
      // Fresh per-request headers: the replay has its own trace.
      expect(again.headers.traceparent).not.toBe(first.headers.traceparent);
      expect(await effects(body.label)).toBe(1);
    });

    it('treats a body with other key order and whitespace as the same request', async () => {
      const key = randomUUID();
      const name = label();
      const first = await alice('POST', `${PROBE}/effects`, {
        body: { label: name, quantity: 3 },
        headers: withIdempotencyKey(key),
      });
      const reordered = await t.app.inject({
        method: 'POST',
        url: `${PROBE}/effects`,
        headers: {
          ...withIdempotencyKey(key.toUpperCase()),
          authorization: aliceAuthorization,
          'content-type': 'application/json',
        },
        payload: `{ "quantity": 3,\n  "label": "${name}" }`,
      });
      expectReplayOf(reordered, first);
      expect(await effects(name)).toBe(1);
    });

    it('replays PATCH as well', async () => {
      const key = randomUUID();
      const body = { label: label() };
      const patch = () =>
        alice('PATCH', `${PROBE}/effects/${effectId}`, {
          body,
          headers: withIdempotencyKey(key),
          contentType: MERGE_PATCH,
        });
      const effectId = randomUUID();
      const first = await patch();
      expect(first.statusCode).toBe(200);
      expectReplayOf(await patch(), first);
      expect(await effects(body.label)).toBe(1);
    });

    it('stores a key for 24 hours from the first request', async () => {
      const key = randomUUID();
      await alice('POST', `${PROBE}/effects`, { body: { label: label() }, headers: withIdempotencyKey(key) });
      const [row] = (await db.query(
        `SELECT state, extract(epoch FROM expires_at - created_at)::int AS ttl
           FROM idempotency_keys WHERE caller_id = $1 AND idempotency_key = $2`,
        [aliceId, key],
      )) as Array<{ state: string; ttl: number }>;
      expect(row).toEqual({ state: 'COMPLETED', ttl: 24 * 60 * 60 });
    });
  });

  describe('conflicts', () => {
    it.each([
      ['en', 'This Idempotency-Key was already used with a different request.'],
      ['ru', 'Этот Idempotency-Key уже использован с другим запросом.'],
    ] as const)('the same key with another body is 409 IDEMPOTENCY_KEY_REUSED (%s)', async (lang, detail) => {
      const key = randomUUID();
      const name = label();
      await alice('POST', `${PROBE}/effects`, { body: { label: name }, headers: withIdempotencyKey(key) });
      const res = await alice('POST', `${PROBE}/effects`, {
        body: { label: name, quantity: 5 },
        headers: withIdempotencyKey(key),
        lang,
      });
      expectProblem(res, 409, 'IDEMPOTENCY_KEY_REUSED', {
        status: 409,
        title: 'Conflict',
        type: 'urn:problem:order-service:idempotency-key-reused',
        detail,
      });
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      expect(await effects(name)).toBe(1);
    });

    it('the same key on another path is 409 IDEMPOTENCY_KEY_REUSED', async () => {
      const key = randomUUID();
      const body = { label: label() };
      await alice('POST', `${PROBE}/effects`, { body, headers: withIdempotencyKey(key) });
      const res = await alice('POST', `${PROBE}/flaky`, { body, headers: withIdempotencyKey(key) });
      expect(res.statusCode).toBe(409);
      expect(res.json().code).toBe('IDEMPOTENCY_KEY_REUSED');
    });

    it.each([
      ['en', 'A request with this Idempotency-Key is still being processed; retry later.'],
      ['ru', 'Запрос с этим Idempotency-Key ещё выполняется; повторите позже.'],
    ] as const)(
      'a retry while the first request runs is 409 IDEMPOTENCY_KEY_IN_PROGRESS; later ones replay (%s)',
      async (lang, detail) => {
        const gate = t.app.get(ProbeGate);
        const key = randomUUID();
        const body = { label: label() };
        gate.close();
        const running = alice('POST', `${PROBE}/gated`, { body, headers: withIdempotencyKey(key) });
        await gate.entered();

        const meanwhile = await alice('POST', `${PROBE}/gated`, {
          body,
          headers: withIdempotencyKey(key),
          lang,
        });
        expectProblem(meanwhile, 409, 'IDEMPOTENCY_KEY_IN_PROGRESS', { detail });
        expect(meanwhile.headers['retry-after']).toBe('1');

        gate.open();
        const first = await running;
        expect(first.statusCode).toBe(201);
        expect(first.headers['idempotent-replayed']).toBeUndefined();
        expectReplayOf(
          await alice('POST', `${PROBE}/gated`, { body, headers: withIdempotencyKey(key) }),
          first,
        );
        expect(await effects(body.label)).toBe(1);
      },
    );

    it('20 concurrent identical requests have exactly one effect; the others replay it or are told it runs', async () => {
      const key = randomUUID();
      const body = { label: label(), quantity: 1 };
      const responses = await Promise.all(
        Array.from({ length: 20 }, () =>
          alice('POST', `${PROBE}/effects`, { body, headers: withIdempotencyKey(key) }),
        ),
      );
      expect(await effects(body.label)).toBe(1);

      const originals = responses.filter((r) => r.statusCode === 201 && !r.headers['idempotent-replayed']);
      expect(originals).toHaveLength(1);
      const [original] = originals;
      for (const res of responses.filter((r) => r !== original)) {
        if (res.statusCode === 409) {
          expect(res.json().code).toBe('IDEMPOTENCY_KEY_IN_PROGRESS');
        } else {
          expectReplayOf(res, original);
        }
      }
      // Once the first has finished, every retry is a replay.
      expectReplayOf(
        await alice('POST', `${PROBE}/effects`, { body, headers: withIdempotencyKey(key) }),
        original,
      );
    });
  });

  describe('scope and lifetime', () => {
    it('keys are per caller: the same key from another caller is independent', async () => {
      const key = randomUUID();
      const body = { label: label() };
      const mine = await alice('POST', `${PROBE}/effects`, { body, headers: withIdempotencyKey(key) });
      const theirs = await bob('POST', `${PROBE}/effects`, { body, headers: withIdempotencyKey(key) });
      expect(mine.statusCode).toBe(201);
      expect(theirs.statusCode).toBe(201);
      expect(theirs.headers['idempotent-replayed']).toBeUndefined();
      expect(theirs.json().effectId).not.toBe(mine.json().effectId);
      expect(await effects(body.label)).toBe(2);
    });

    it('on a public route the caller is the client address', async () => {
      const key = randomUUID();
      const body = { label: label() };
      const from = (ip: string) => withIdempotencyKey(key, { 'x-forwarded-for': ip });
      const first = await anonymous('POST', `${PROBE}/public`, { body, headers: from('203.0.113.7') });
      expect(first.statusCode).toBe(201);
      expectReplayOf(
        await anonymous('POST', `${PROBE}/public`, { body, headers: from('203.0.113.7') }),
        first,
      );
      const other = await anonymous('POST', `${PROBE}/public`, { body, headers: from('198.51.100.9') });
      expect(other.statusCode).toBe(201);
      expect(other.headers['idempotent-replayed']).toBeUndefined();
      expect(await effects(body.label)).toBe(2);
    });

    it('an expired key executes again, even with another body', async () => {
      const key = randomUUID();
      const body = { label: label() };
      const first = await alice('POST', `${PROBE}/effects`, { body, headers: withIdempotencyKey(key) });
      await db.query(
        `UPDATE idempotency_keys SET expires_at = now() - interval '1 second'
          WHERE caller_id = $1 AND idempotency_key = $2`,
        [aliceId, key],
      );
      const again = await alice('POST', `${PROBE}/effects`, { body, headers: withIdempotencyKey(key) });
      expect(again.statusCode).toBe(201);
      expect(again.headers['idempotent-replayed']).toBeUndefined();
      expect(again.json().effectId).not.toBe(first.json().effectId);
      expect(await effects(body.label)).toBe(2);
      // The key is live again, for the new outcome.
      expectReplayOf(
        await alice('POST', `${PROBE}/effects`, { body, headers: withIdempotencyKey(key) }),
        again,
      );
    });

    it('a request left IN_PROGRESS by a crashed process is taken over after the lock timeout', async () => {
      const key = randomUUID();
      const body = { label: label() };
      const url = `${PROBE}/effects`;
      const insertClaim = (age: string, fingerprint: string) =>
        db.query(
          `INSERT INTO idempotency_keys (caller_id, idempotency_key, fingerprint, state, claim_token, created_at, expires_at)
           VALUES ($1, $2, $3, 'IN_PROGRESS', gen_random_uuid(), now() - $4::interval, now() + interval '1 day')`,
          [aliceId, key, fingerprint, age],
        );
      await insertClaim('2 minutes', requestFingerprint('POST', url, { label: 'something else' }));
      // Another request's stale claim is still that request's key.
      const other = await alice('POST', url, { body, headers: withIdempotencyKey(key) });
      expect(other.statusCode).toBe(409);
      expect(other.json().code).toBe('IDEMPOTENCY_KEY_REUSED');

      await db.query('DELETE FROM idempotency_keys WHERE caller_id = $1 AND idempotency_key = $2', [
        aliceId,
        key,
      ]);
      await insertClaim('2 minutes', requestFingerprint('POST', url, body));
      const takenOver = await alice('POST', url, { body, headers: withIdempotencyKey(key) });
      expect(takenOver.statusCode).toBe(201);
      expect(takenOver.headers['idempotent-replayed']).toBeUndefined();
      expect(await effects(body.label)).toBe(1);
      expectReplayOf(await alice('POST', url, { body, headers: withIdempotencyKey(key) }), takenOver);
    });

    it('the purge deletes expired keys only', async () => {
      const expired = randomUUID();
      const live = randomUUID();
      await alice('POST', `${PROBE}/effects`, {
        body: { label: label() },
        headers: withIdempotencyKey(expired),
      });
      await alice('POST', `${PROBE}/effects`, {
        body: { label: label() },
        headers: withIdempotencyKey(live),
      });
      await db.query(
        `UPDATE idempotency_keys SET expires_at = now() - interval '1 hour' WHERE idempotency_key = $1`,
        [expired],
      );
      await t.app.get(IdempotencyCleanup).purge();
      const rows = (await db.query(
        'SELECT idempotency_key FROM idempotency_keys WHERE idempotency_key = ANY($1::text[])',
        [[expired, live]],
      )) as Array<{ idempotency_key: string }>;
      expect(rows.map((r) => r.idempotency_key)).toEqual([live]);
    });
  });

  describe('outcomes that are recorded and outcomes that are not', () => {
    it('a request refused by validation binds no key: the same key runs the corrected request', async () => {
      const key = randomUUID();
      const body = { label: 42 };
      const first = await alice('POST', `${PROBE}/effects`, {
        body,
        headers: withIdempotencyKey(key),
        lang: 'en',
      });
      expect(first.statusCode).toBe(400);
      expect(first.json().code).toBe('VALIDATION_ERROR');
      // Not replayed: refused before the handler ran, so nothing was recorded
      // (docs/decisions/0058-input-validated-in-one-step.md).
      const again = await alice('POST', `${PROBE}/effects`, { body, headers: withIdempotencyKey(key) });
      expect(again.statusCode).toBe(400);
      expect(again.headers['idempotent-replayed']).toBeUndefined();
      // The corrected request with the same key runs, and is then what the key replays.
      const fixed = await alice('POST', `${PROBE}/effects`, {
        body: { label: 'fixed' },
        headers: withIdempotencyKey(key),
      });
      expect(fixed.statusCode).toBe(201);
      const replay = await alice('POST', `${PROBE}/effects`, {
        body: { label: 'fixed' },
        headers: withIdempotencyKey(key),
      });
      expectReplayOf(replay, fixed);
    });

    it('a domain error after an effect replays without repeating the effect', async () => {
      const key = randomUUID();
      const body = { label: label() };
      const first = await alice('POST', `${PROBE}/refused`, { body, headers: withIdempotencyKey(key) });
      expect(first.statusCode).toBe(404);
      expect(first.json().code).toBe('ORDER_NOT_FOUND');
      expectReplayOf(
        await alice('POST', `${PROBE}/refused`, { body, headers: withIdempotencyKey(key) }),
        first,
      );
      expect(await effects(body.label)).toBe(1);
    });

    it('an unexpected failure (5xx) gives the key back: the retry executes', async () => {
      const key = randomUUID();
      const body = { label: label() };
      t.app.get(ProbeFailures).failOnce.add(body.label);
      const failed = await alice('POST', `${PROBE}/flaky`, { body, headers: withIdempotencyKey(key) });
      expect(failed.statusCode).toBe(500);
      const retried = await alice('POST', `${PROBE}/flaky`, { body, headers: withIdempotencyKey(key) });
      expect(retried.statusCode).toBe(201);
      expect(retried.headers['idempotent-replayed']).toBeUndefined();
      expect(await effects(body.label)).toBe(1);
      expectReplayOf(
        await alice('POST', `${PROBE}/flaky`, { body, headers: withIdempotencyKey(key) }),
        retried,
      );
    });
  });

  describe('the key header', () => {
    it.each([
      ['en', 'This field is required.'],
      ['ru', 'Поле обязательно.'],
    ] as const)(
      'a required key that is missing is 400 REQUIRED on Idempotency-Key (%s)',
      async (lang, message) => {
        const body = { label: label() };
        const res = await alice('POST', `${PROBE}/effects`, { body, lang });
        expectProblem(res, 400, 'VALIDATION_ERROR', {
          violations: [{ field: 'Idempotency-Key', code: 'REQUIRED', message }],
        });
        expect(await effects(body.label)).toBe(0);
      },
    );

    it.each([
      ['a required key that is no uuid', 'effects', 'not-a-uuid'],
      ['an optional key that is no uuid', 'gated', '12345'],
      ['two keys in one header', 'effects', `${randomUUID()}, ${randomUUID()}`],
    ])('%s is 400 INVALID_FORMAT on Idempotency-Key', async (_case, route, key) => {
      const body = { label: label() };
      const res = await alice('POST', `${PROBE}/${route}`, {
        body,
        headers: withIdempotencyKey(key),
        lang: 'en',
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().violations).toEqual([
        {
          field: 'Idempotency-Key',
          code: 'INVALID_FORMAT',
          message: 'The value does not have the expected format (uuid).',
        },
      ]);
      expect(await effects(body.label)).toBe(0);
    });

    it('an optional key that is absent: every request executes', async () => {
      const body = { label: label() };
      await anonymous('POST', `${PROBE}/public`, { body });
      const second = await anonymous('POST', `${PROBE}/public`, { body });
      expect(second.statusCode).toBe(201);
      expect(second.headers['idempotent-replayed']).toBeUndefined();
      expect(await effects(body.label)).toBe(2);
    });

    it('is ignored on handlers without @Idempotent() and on DELETE', async () => {
      const key = randomUUID();
      const body = { label: label() };
      const first = await alice('POST', `${PROBE}/plain`, { body, headers: withIdempotencyKey(key) });
      const second = await alice('POST', `${PROBE}/plain`, { body, headers: withIdempotencyKey(key) });
      expect(second.headers['idempotent-replayed']).toBeUndefined();
      expect(await effects(body.label)).toBe(2);

      const removeKey = withIdempotencyKey(randomUUID());
      const url = `${PROBE}/effects/${first.json().effectId}`;
      expect((await alice('DELETE', url, { headers: removeKey })).statusCode).toBe(204);
      const removedAgain = await alice('DELETE', url, { headers: removeKey });
      expect(removedAgain.statusCode).toBe(404);
      expect(removedAgain.headers['idempotent-replayed']).toBeUndefined();
    });
  });

  describe("the key's outcome commits with the request's changes", () => {
    const ORDERS = '/api/v1/orders';
    let productId: string;

    beforeAll(async () => {
      productId = (await createProduct(await adminClient(t), { stock: 1000 })).productId;
    });

    /** The orders whose note is `note`: what the creates under test made. */
    async function ordersNoted(note: string): Promise<number> {
      const [row] = (await db.query('SELECT count(*)::int AS count FROM orders WHERE note = $1', [
        note,
      ])) as Array<{ count: number }>;
      return row.count;
    }

    it('an unexpected failure (5xx) after the change undoes the change with the key: the retry makes it once', async () => {
      const key = randomUUID();
      const body = { label: label() };
      t.app.get(ProbeFailures).failOnce.add(body.label);
      const failed = await alice('POST', `${PROBE}/fails-after-effect`, {
        body,
        headers: withIdempotencyKey(key),
      });
      expect(failed.statusCode).toBe(500);
      expect(await effects(body.label)).toBe(0);
      const retried = await alice('POST', `${PROBE}/fails-after-effect`, {
        body,
        headers: withIdempotencyKey(key),
      });
      expect(retried.statusCode).toBe(201);
      expect(await effects(body.label)).toBe(1);
      expectReplayOf(
        await alice('POST', `${PROBE}/fails-after-effect`, { body, headers: withIdempotencyKey(key) }),
        retried,
      );
    });

    it('a committed create has its completed key, written in the same transaction', async () => {
      const key = randomUUID();
      const note = `made once ${randomUUID()}`;
      const body = { items: [{ productId, quantity: 2 }], note };
      const first = await alice('POST', ORDERS, { body, headers: withIdempotencyKey(key) });
      expect(first.statusCode).toBe(201);
      // The order row and the key's record were written by one transaction (the same xmin).
      const [row] = (await db.query(
        `SELECT (SELECT xmin::text FROM orders WHERE order_id = $1) AS "order",
                (SELECT xmin::text FROM idempotency_keys WHERE caller_id = $2 AND idempotency_key = $3
                    AND state = 'COMPLETED') AS "key"`,
        [first.json().orderId, aliceId, key],
      )) as Array<{ order: string; key: string | null }>;
      expect(row.key).not.toBeNull();
      expect(row.key).toBe(row.order);
      expectReplayOf(await alice('POST', ORDERS, { body, headers: withIdempotencyKey(key) }), first);
      expect(await ordersNoted(note)).toBe(1);
    });

    it("another caller's create with the same key is its own order", async () => {
      const key = randomUUID();
      const body = { items: [{ productId, quantity: 1 }] };
      const mine = await alice('POST', ORDERS, { body, headers: withIdempotencyKey(key) });
      const theirs = await bob('POST', ORDERS, { body, headers: withIdempotencyKey(key) });
      expect(theirs.statusCode).toBe(201);
      expect(theirs.json().orderId).not.toBe(mine.json().orderId);
    });

    it('once the key has expired, the same key makes a new order', async () => {
      const key = randomUUID();
      const note = `expired key ${randomUUID()}`;
      const body = { items: [{ productId, quantity: 1 }], note };
      const first = await alice('POST', ORDERS, { body, headers: withIdempotencyKey(key) });
      expect(first.statusCode).toBe(201);
      await db.query(
        `UPDATE idempotency_keys SET expires_at = now() - interval '1 second'
          WHERE caller_id = $1 AND idempotency_key = $2`,
        [aliceId, key],
      );
      const later = await alice('POST', ORDERS, { body, headers: withIdempotencyKey(key) });
      expect(later.statusCode).toBe(201);
      expect(later.json().orderId).not.toBe(first.json().orderId);
      expect(await ordersNoted(note)).toBe(2);
    });
  });
});
