import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { EventMaintenance } from '../src/modules/events/event-maintenance.service';
import { dayPartitionName } from '../src/platform/database/time-partitions';
import { apiClient, ApiClient } from './support/http-client';
import { migrateDatabase, migrationsUpTo } from './support/scratch-migrations';
import { bootTestApp, TestApp } from './support/test-app';
import { bearer } from './support/tokens';

/**
 * Events partitioned by day (docs/decisions/0153-events-partitioned-by-day.md), on a database of the test's
 * own: the migration from the single table on a seeded database (rows kept, no copy, numbering and feed
 * working after), then, with the old table gone and past days made, the feed across a day boundary that a
 * late commit crosses, retention dropping a whole day with the mark and CURSOR_EXPIRED, a write with no day
 * of its own kept by the default partition and reported, and the days made ahead by the job.
 */

const DIRECT_URL = process.env.E2E_DIRECT_DATABASE_URL as string;
const DAY = 86_400_000;
const EVENTS = '/api/v1/events';
const SEEDED = 20_000;
const cursorOf = (sequence: number) => Buffer.from(`seq:${sequence}`).toString('base64url');

interface FeedPage {
  content: Array<{ eventId: string; sequence: number; occurredAt: string }>;
  nextCursor: string;
  hasNext: boolean;
}

describe('events partitioned by day', () => {
  const name = `${new URL(DIRECT_URL).pathname.slice(1)}_parts_${randomUUID().slice(0, 8)}`;
  const url = new URL(DIRECT_URL);
  url.pathname = `/${name}`;
  const admin = new pg.Pool({ connectionString: DIRECT_URL, max: 1 });
  let db: pg.Pool;
  let t: TestApp;
  let api: ApiClient;

  const migrate = (list?: Parameters<typeof migrateDatabase>[1]) => migrateDatabase(url.toString(), list);

  beforeAll(async () => {
    await admin.query(`CREATE DATABASE ${name}`);
    db = new pg.Pool({ connectionString: url.toString(), max: 4 });
    // Its connections end with the database, dropped afterwards.
    db.on('error', () => undefined);
  });
  afterAll(async () => {
    await t?.close();
    await db.end();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  /** Every event the feed serves from `cursor` (none: the start), page by page. */
  async function follow(cursor?: string, size = 7, query = ''): Promise<number[]> {
    const seen: number[] = [];
    let position = cursor;
    for (;;) {
      const res = await api('GET', `${EVENTS}?size=${size}${query}${position ? `&cursor=${position}` : ''}`);
      expect([res.statusCode, res.body]).toEqual([200, expect.anything()]);
      const page = res.json<FeedPage>();
      seen.push(...page.content.map((e) => e.sequence));
      position = page.nextCursor;
      if (!page.hasNext) return seen;
    }
  }

  const numbered = async (where = 'true') =>
    (
      await db.query<{ s: string }>(
        `SELECT sequence::text AS s FROM events WHERE sequence IS NOT NULL AND ${where} ORDER BY sequence`,
      )
    ).rows.map((r) => Number(r.s));

  it('migrates a seeded single table without copying it: rows kept, numbering and the feed working after', async () => {
    await migrate(migrationsUpTo('EventsPartitionedByDay1763800020000', 'before'));
    // The old schema, seeded as production has it: numbered events over the last 20 days (within retention).
    await db.query(
      `INSERT INTO events (sequence, type, occurred_at, order_id, customer_id, data)
       SELECT nextval('events_sequence'), 'ORDER_UPDATED', now() - interval '20 days' + g * interval '20 days' / $1,
              gen_random_uuid(), gen_random_uuid(), '{}'::jsonb
         FROM generate_series(1, $1) g`,
      [SEEDED],
    );
    const before = await db.query<{ oid: number }>(`SELECT 'events'::regclass::oid AS oid`);
    await migrate();

    // The old table is the partition below the cut, the same relation (not a copy), every row in it.
    const legacy = await db.query<{ oid: number; bound: string }>(
      `SELECT c.oid, pg_get_expr(c.relpartbound, c.oid) AS bound FROM pg_class c WHERE c.relname = 'events_legacy'`,
    );
    expect(legacy.rows[0].oid).toBe(before.rows[0].oid);
    expect(legacy.rows[0].bound).toMatch(/^FOR VALUES FROM \(MINVALUE\) TO/);
    expect((await db.query('SELECT count(*)::int AS n FROM ONLY events_legacy')).rows[0].n).toBe(SEEDED);
    const days = await db.query(`SELECT relname FROM pg_class WHERE relname ~ '^events_p[0-9]{8}$'`);
    expect(days.rowCount).toBe(7);
    expect((await db.query('SELECT count(*)::int AS n FROM events_default')).rows[0].n).toBe(0);

    // Numbering at commit reaches its row in one partition.
    const plan = await db.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN UPDATE events SET sequence = 0
        WHERE event_id = gen_random_uuid() AND occurred_at = '2030-01-01T00:00:00Z' AND sequence IS NULL`,
    );
    const probed = new Set(
      plan.rows
        .flatMap((r) => [...r['QUERY PLAN'].matchAll(/ on (events_\w+)/g)].map((m) => m[1]))
        .filter((relation) => !/_(pkey|idx)$/.test(relation)),
    );
    expect([...probed]).toEqual([expect.stringMatching(/^events_(default|p\d{8})$/)]);

    t = await bootTestApp({ DATABASE_URL: url.toString(), DATABASE_REPLICA_URLS: undefined });
    api = apiClient(t, await bearer(t.config, ['ADMIN']));
    await db.query(
      `INSERT INTO events (type, task_id, data) VALUES ('TASK_COMPLETED', gen_random_uuid(), '{}')`,
    );
    const all = await numbered();
    expect(all).toHaveLength(SEEDED + 1);
    expect(all[SEEDED]).toBeGreaterThan(all[SEEDED - 1]);
    expect(await follow(undefined, 100)).toEqual(all);
    expect(await follow(cursorOf(all[SEEDED - 50]), 9)).toEqual(all.slice(SEEDED - 49));
  });

  describe('with past days of their own', () => {
    const today = Math.floor(Date.now() / DAY) * DAY;
    const d1 = new Date(today - 3 * DAY);
    const d2 = new Date(today - 2 * DAY);
    const at = (day: Date, time: string) => new Date(`${day.toISOString().slice(0, 10)}T${time}Z`);
    let late = 0;
    let early = 0;

    /** A mark as the job would have recorded it at `recordedAt`, the oldest transaction open then at `floor`. */
    const mark = (floor: Date, recordedAt: Date) =>
      db.query(
        `INSERT INTO event_sequence_marks (sequence, floor, recorded_at)
         SELECT CASE WHEN is_called THEN last_value ELSE 0 END, $1, $2 FROM events_sequence
         ON CONFLICT (sequence) DO NOTHING`,
        [floor, recordedAt],
      );
    const write = (client: pg.PoolClient | pg.Pool, occurredAt: Date) =>
      client.query(
        `INSERT INTO events (type, task_id, occurred_at, data) VALUES ('TASK_COMPLETED', gen_random_uuid(), $1, '{}')`,
        [occurredAt],
      );

    beforeAll(async () => {
      // The old table and its rows go; days from three days ago on are made as the job makes days ahead.
      await db.query('ALTER TABLE events DETACH PARTITION events_legacy');
      await db.query('DROP TABLE events_legacy');
      await db.query('TRUNCATE event_sequence_marks');
      await t.app.get(EventMaintenance).makeDaysAhead(d1);
    });

    it('serves every event once, in order, across a day boundary a late commit crosses', async () => {
      for (let i = 0; i < 5; i++) await write(db, at(d1, `10:00:0${i}`));
      await mark(at(d1, '12:00:00'), at(d1, '12:00:00'));
      // A transaction begun just before midnight commits after one begun just after it.
      const held = await db.connect();
      try {
        await held.query('BEGIN');
        await write(held, at(d1, '23:59:59'));
        await write(db, at(d2, '00:00:01'));
        // Recorded while the first is still open: what is numbered after began at its start or later.
        await mark(at(d1, '23:59:59'), at(d2, '00:00:02'));
        await held.query('COMMIT');
      } finally {
        held.release();
      }
      for (let i = 0; i < 5; i++) await write(db, at(d2, `10:00:0${i}`));
      await mark(at(d2, '12:00:00'), at(d2, '12:00:00'));

      const day1 = await numbered(`occurred_at < '${d2.toISOString()}'`);
      const day2 = await numbered(`occurred_at >= '${d2.toISOString()}'`);
      late = day1[day1.length - 1];
      early = day2[0];
      expect(late).toBeGreaterThan(early); // the days overlap in numbers
      const all = await numbered();
      // From the start, and from a cursor between the early event of the second day and the late one of the first.
      expect(await follow(undefined, 2)).toEqual(all);
      expect(await follow(cursorOf(early), 1)).toEqual(all.filter((s) => s > early));
      expect(await follow(cursorOf(early), 3, '&type=TASK_COMPLETED')).toEqual(all.filter((s) => s > early));
    });

    it('fills a page of a rare type from stretches that widen, every match once and in order', async () => {
      // 300 events of the second day in batches of 10, a mark after each (as the job records them), three of
      // them of a rare type far apart: a page of two of them needs several stretches.
      const from = (await numbered()).at(-1) as number;
      for (let batch = 0; batch < 30; batch++) {
        await db.query(
          `INSERT INTO events (type, task_id, occurred_at, data)
           SELECT CASE WHEN $1 + g IN (10, 150, 290) THEN 'TASK_FAILED' ELSE 'TASK_COMPLETED' END,
                  gen_random_uuid(), $2::timestamptz + ($1 + g) * interval '1 second', '{}'
             FROM generate_series(1, 10) g`,
          [batch * 10, at(d2, '13:00:00')],
        );
        const last = at(d2, '13:00:00').getTime() + (batch * 10 + 10) * 1000;
        await mark(new Date(last), new Date(last + 1000));
      }
      const rare = await numbered(`sequence > ${from} AND type = 'TASK_FAILED'`);
      expect(rare).toHaveLength(3);
      expect(await follow(cursorOf(from), 2, '&type=TASK_FAILED')).toEqual(rare);
      expect(await follow(cursorOf(from), 50)).toEqual(await numbered(`sequence > ${from}`));
    });

    it('drops a whole day past retention, with the mark at its highest number: a cursor inside it expires, one after it does not', async () => {
      const maintenance = t.app.get(EventMaintenance);
      const retention = t.config.events.retentionDays;
      // The day after d1 is when d1 is wholly past the retention of a clock `retention` days on.
      const { partitions } = await maintenance.applyRetention(new Date(d2.getTime() + retention * DAY));
      expect(partitions).toEqual([dayPartitionName('events', d1)]);
      const purged = await db.query<{ p: string }>('SELECT purged_through::text AS p FROM event_retention');
      expect(Number(purged.rows[0].p)).toBe(late);

      const inside = await api('GET', `${EVENTS}?cursor=${cursorOf(early)}`);
      expect(inside.statusCode).toBe(400);
      expect(inside.json<{ violations: Array<{ code: string }> }>().violations).toEqual([
        expect.objectContaining({ code: 'CURSOR_EXPIRED' }),
      ]);
      const rest = await numbered(`sequence > ${late}`);
      expect(await follow(cursorOf(late), 2)).toEqual(rest);
      // Without a cursor the feed starts after the mark (the early event of the second day is not served).
      expect(await follow(undefined, 2)).toEqual(rest);
    });

    it('keeps a write with no day of its own in the default partition and reports it, until its day is made', async () => {
      await db.query(`DROP TABLE ${dayPartitionName('events', new Date(today))}`);
      await write(db, new Date());
      expect((await db.query('SELECT count(*)::int AS n FROM events_default')).rows[0].n).toBe(1);
      const metrics = await t.app.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/metrics' });
      expect(metrics.body).toMatch(/^db_default_partition_rows\{table="events"\} 1$/m);

      const made = await t.app.get(EventMaintenance).makeDaysAhead();
      expect(made).toEqual([dayPartitionName('events', new Date(today))]);
      expect((await db.query('SELECT count(*)::int AS n FROM events_default')).rows[0].n).toBe(0);
      const after = await t.app.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/metrics' });
      expect(after.body).toMatch(/^db_default_partition_rows\{table="events"\} 0$/m);
    });

    it('the scheduled pass makes the days ahead and records a mark', async () => {
      const lastMark = async () =>
        Number((await db.query('SELECT max(sequence)::text AS s FROM event_sequence_marks')).rows[0].s);
      await write(db, new Date());
      await db.query(`DROP TABLE ${dayPartitionName('events', new Date(today + 7 * DAY))}`);
      await t.app.get(EventMaintenance).maintain();
      const names = (
        await db.query<{ relname: string }>(
          `SELECT relname FROM pg_class WHERE relname ~ '^events_p[0-9]{8}$'`,
        )
      ).rows.map((r) => r.relname);
      for (let i = 0; i <= 7; i++)
        expect(names).toContain(dayPartitionName('events', new Date(today + i * DAY)));
      expect(await lastMark()).toBe((await numbered()).pop());
    });
  });
});
