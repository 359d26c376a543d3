import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { apiClient, ApiClient, MERGE_PATCH, withIdempotencyKey } from './support/http-client';
import { createOrder, ORDERS } from './support/orders';
import { bootTestApp, TestApp } from './support/test-app';
import { bearer, callerToken } from './support/tokens';
import { until } from './support/wait';

/**
 * The feed's promise under concurrency: a follower that pages with cursors while many transactions commit,
 * some held open on purpose so that they commit after later ones, sees every event exactly once, in
 * `sequence` order. Afterwards what each follower saw is compared with the table.
 */

const EVENTS = '/api/v1/events';
const cursorSequence = (cursor: string) =>
  Number(Buffer.from(cursor, 'base64url').toString('utf8').slice('seq:'.length));
const WRITERS = 6;
const WRITES_PER_WRITER = 20;

interface FeedPage {
  content: Array<{ eventId: string; sequence: number; customerId?: string }>;
  nextCursor: string;
  hasNext: boolean;
}

describe('the change feed under concurrent, out-of-order commits', () => {
  let t: TestApp;
  let admin: ApiClient;
  let customer: ApiClient;
  let customerId: string;
  let direct: pg.Pool;

  beforeAll(async () => {
    t = await bootTestApp();
    admin = apiClient(t, await bearer(t.config, ['ADMIN']));
    const token = await callerToken(t.config, ['CUSTOMER']);
    customerId = token.sub;
    customer = apiClient(t, token.authorization);
    // The database itself, past any pooler: the held transactions are the test's own.
    direct = new pg.Pool({ connectionString: process.env.E2E_DIRECT_DATABASE_URL, max: 6 });
  });
  afterAll(async () => {
    await direct.end();
    await t.close();
  });

  /**
   * A follower: pages the feed (with `query`) from `cursor` until stopped and caught up: its cursor has
   * passed `last()`, the highest sequence once everything has committed.
   */
  function follow(query: string, cursor: string, last: () => number | undefined) {
    const seen: FeedPage['content'] = [];
    const pages = (async () => {
      let position = cursor;
      for (;;) {
        const end = last();
        const res = await admin('GET', `${EVENTS}?size=7&cursor=${position}${query}`);
        expect(res.statusCode).toBe(200);
        const page = res.json<FeedPage>();
        seen.push(...page.content);
        position = page.nextCursor;
        if (end !== undefined && !page.hasNext && cursorSequence(position) >= end) return;
      }
    })();
    return { seen, pages };
  }

  /**
   * A transaction of the database's own that records an event of this test's customer, then stays open
   * until `release` holds; `numberEarly` makes it number its events before waiting (its number is passed
   * to `release`): the feed must not pass that number until it commits.
   */
  async function heldTransaction(
    release: (sequence: number) => boolean | Promise<boolean>,
    numberEarly = false,
  ): Promise<string> {
    const client = await direct.connect();
    try {
      await client.query('BEGIN');
      const [{ event_id: eventId }] = (
        await client.query(
          `INSERT INTO events (type, order_id, customer_id, data)
           VALUES ('ORDER_UPDATED', $1, $2, '{"held":true}') RETURNING event_id`,
          [randomUUID(), customerId],
        )
      ).rows as Array<{ event_id: string }>;
      let sequence = Number.NaN;
      if (numberEarly) {
        await client.query('SET CONSTRAINTS ALL IMMEDIATE');
        const numbered = await client.query('SELECT sequence::text FROM events WHERE event_id = $1', [
          eventId,
        ]);
        sequence = Number((numbered.rows as Array<{ sequence: string }>)[0].sequence);
      }
      await until('the release of a held transaction', () => release(sequence), { intervalMs: 5 });
      await client.query('COMMIT');
      return eventId;
    } catch (error: unknown) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** events_feed_lag_seconds as /metrics reports it. */
  const feedLag = async () => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    return Number(/^events_feed_lag_seconds (\S+)$/m.exec(res.body)?.[1] ?? 'NaN');
  };

  it('every follower sees every event once, in sequence order, as the table holds them', async () => {
    // Start where the feed is now: an empty page points past every event visible.
    const start = (await admin('GET', `${EVENTS}?customerId=${randomUUID()}`)).json<FeedPage>().nextCursor;
    let writesDone = 0;
    let lastSequence: number | undefined = undefined;
    let heldBackWhileWritersCommit = false;
    const filtered = follow(`&customerId=${customerId}`, start, () => lastSequence);
    const unfiltered = follow('', start, () => lastSequence);
    const seenOfCustomer = () => filtered.seen.length;

    // Held open while writers commit after them: each is released once followers have seen events
    // committed after it began.
    const held = [
      heldTransaction(() => seenOfCustomer() >= 10),
      heldTransaction(() => seenOfCustomer() >= 40),
      heldTransaction(() => writesDone >= (WRITERS * WRITES_PER_WRITER) / 2),
      heldTransaction(() => seenOfCustomer() >= 60),
    ];
    // Wait until they hold their rows before the writers begin, so they really are older.
    await until(
      'the held transactions to begin',
      async () =>
        Number(
          (
            await direct.query(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'idle in transaction' AND datname = current_database()",
            )
          ).rows[0].n,
        ) >= held.length,
      { intervalMs: 5 },
    );

    const writers = Array.from({ length: WRITERS }, async (_, writer) => {
      for (let i = 0; i < WRITES_PER_WRITER; i += 1) {
        const { orderId } = await createOrder(customer, { note: `w${writer}-${i}` });
        if (i % 2 === 0) {
          const res = await customer('PATCH', `${ORDERS}/${orderId}`, {
            body: { note: 'patched' },
            contentType: MERGE_PATCH,
            headers: withIdempotencyKey(),
          });
          expect(res.statusCode).toBe(200);
        }
        writesDone += 1;
        // Midway, one transaction numbers its event and stays open. Writers go on committing (followers
        // never make them wait), the feed's lag shows the open one, and no follower is served anything
        // numbered after it until it commits.
        if (writer === 0 && i === WRITES_PER_WRITER / 2) {
          const writesBefore = writesDone;
          held.push(
            heldTransaction(async (sequence) => {
              if (writesDone < writesBefore + WRITERS * 2 || !((await feedLag()) > 0)) return false;
              const passed = [filtered, unfiltered].some((f) =>
                f.seen.some((event) => event.sequence > sequence),
              );
              heldBackWhileWritersCommit = !passed;
              return true;
            }, true),
          );
        }
      }
    });
    await Promise.all(writers);
    const heldIds = await Promise.all(held);
    lastSequence = Number(
      (await direct.query('SELECT last_value FROM events_sequence')).rows[0].last_value as string,
    );
    await Promise.all([filtered.pages, unfiltered.pages]);

    const table = (
      await direct.query('SELECT event_id, sequence FROM events WHERE customer_id = $1 ORDER BY sequence', [
        customerId,
      ])
    ).rows as Array<{ event_id: string; sequence: string }>;
    // 120 creates, 60 patches, the held transactions' events.
    expect(table).toHaveLength(WRITERS * WRITES_PER_WRITER * 1.5 + heldIds.length);
    expect(table.every((row) => row.sequence !== null)).toBe(true);
    const expected = table.map((row) => row.event_id);

    for (const follower of [filtered, unfiltered]) {
      const ofCustomer = follower.seen.filter((event) => event.customerId === customerId);
      expect(ofCustomer.map((event) => event.eventId)).toEqual(expected);
      const sequences = follower.seen.map((event) => event.sequence);
      expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
      expect(new Set(sequences).size).toBe(sequences.length);
    }
    expect(heldBackWhileWritersCommit).toBe(true);
    // The held transactions inserted their events before the writers began, yet were numbered when they
    // committed, after events that committed earlier: out-of-order commits did happen, and were not skipped.
    const position = (eventId: string) => expected.indexOf(eventId);
    expect(
      heldIds
        .slice(0, 2)
        .map(position)
        .every((index) => index >= 10),
    ).toBe(true);
  });
});
