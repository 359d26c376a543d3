import { randomUUID } from 'node:crypto';
import pg from 'pg';
import {
  dayPartitionName,
  defaultPartitionName,
  TimePartitions,
  type TimePartition,
} from '../src/platform/database/time-partitions';
import { bootTestApp, TestApp } from './support/test-app';

/**
 * The day-partition mechanism (src/platform/database/time-partitions.ts) on a table of its own, through the
 * service's executor: days made ahead, a write with no day of its own kept by the default partition and moved
 * into its day when that is made, whole days dropped past a cutoff, and a drop that cannot get its lock in
 * time giving up rather than holding writers behind it.
 */

const DAY = 86_400_000;
const utcDay = (iso: string) => new Date(`${iso}T00:00:00Z`);

describe('TimePartitions', () => {
  let t: TestApp;
  let partitions: TimePartitions;
  let direct: pg.Pool;
  const table = `tp_${randomUUID().replaceAll('-', '').slice(0, 12)}`;

  beforeAll(async () => {
    t = await bootTestApp();
    partitions = t.app.get(TimePartitions);
    direct = new pg.Pool({ connectionString: process.env.E2E_DIRECT_DATABASE_URL, max: 3 });
    await direct.query(
      `CREATE TABLE ${table} (id bigserial, at timestamptz NOT NULL, note text,
         PRIMARY KEY (id, at)) PARTITION BY RANGE (at)`,
    );
    await direct.query(`CREATE INDEX ON ${table} (note, id)`);
    await direct.query(`CREATE TABLE ${defaultPartitionName(table)} PARTITION OF ${table} DEFAULT`);
  });
  afterAll(async () => {
    await direct.query(`DROP TABLE IF EXISTS ${table}`);
    await direct.end();
    await t.close();
  });

  const rowsOf = async (partition: string) =>
    (await direct.query<{ note: string }>(`SELECT note FROM ONLY ${partition} ORDER BY id`)).rows.map(
      (r) => r.note,
    );

  it('makes the UTC days from today on ahead once, listed oldest first with their bounds', async () => {
    const now = new Date('2031-03-10T22:30:00-03:30'); // 2031-03-11 02:00 UTC
    const made = await partitions.makeDaysAhead(table, 2, now);
    expect(made).toEqual(
      ['2031-03-11', '2031-03-12', '2031-03-13'].map((d) => dayPartitionName(table, utcDay(d))),
    );
    expect(await partitions.makeDaysAhead(table, 2, now)).toEqual([]);
    const listed = await partitions.list(table);
    expect(listed).toEqual<TimePartition[]>(
      ['2031-03-11', '2031-03-12', '2031-03-13'].map((d) => ({
        name: dayPartitionName(table, utcDay(d)),
        from: utcDay(d),
        to: new Date(utcDay(d).getTime() + DAY),
      })),
    );
    // A row at the last instant of a day is that day's, the next instant the next day's.
    await direct.query(`INSERT INTO ${table} (at, note) VALUES ($1, 'last'), ($2, 'first')`, [
      new Date(utcDay('2031-03-12').getTime() - 1),
      utcDay('2031-03-12'),
    ]);
    expect(await rowsOf(dayPartitionName(table, utcDay('2031-03-11')))).toEqual(['last']);
    expect(await rowsOf(dayPartitionName(table, utcDay('2031-03-12')))).toEqual(['first']);
  });

  it('keeps a write with no day of its own in the default partition, and moves it into its day when made', async () => {
    await direct.query(`INSERT INTO ${table} (at, note) VALUES ('2031-03-20T12:00:00Z', 'early')`);
    expect(await partitions.defaultRows(table)).toBe(1);
    const made = await partitions.makeDaysAhead(table, 0, new Date('2031-03-20T05:00:00Z'));
    expect(made).toEqual([dayPartitionName(table, utcDay('2031-03-20'))]);
    expect(await partitions.defaultRows(table)).toBe(0);
    expect(await rowsOf(made[0])).toEqual(['early']);
    // The made day carries the parent's indexes.
    const { rows } = await direct.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_indexes WHERE tablename = $1',
      [made[0]],
    );
    expect(rows[0].n).toBe(2);
  });

  it('drops the days wholly before the cutoff, oldest first, with the caller’s work in the same transaction', async () => {
    const seen: string[] = [];
    const dropped = await partitions.dropBefore(table, new Date('2031-03-13T12:00:00Z'), {
      beforeDrop: async (tx, partition) => {
        const [row] = await tx.rows<{ n: number }>(
          { text: `SELECT count(*)::int AS n FROM ${partition.name}` },
          [],
        );
        seen.push(`${partition.name}:${row.n}`);
      },
    });
    expect(dropped.map((p) => p.name)).toEqual(
      ['2031-03-11', '2031-03-12'].map((d) => dayPartitionName(table, utcDay(d))),
    );
    expect(seen).toEqual([
      `${dayPartitionName(table, utcDay('2031-03-11'))}:1`,
      `${dayPartitionName(table, utcDay('2031-03-12'))}:1`,
    ]);
    expect((await partitions.list(table)).map((p) => p.name)).toEqual(
      ['2031-03-13', '2031-03-20'].map((d) => dayPartitionName(table, utcDay(d))),
    );
  });

  it('gives up a drop whose lock is not granted within its bound, leaving writers free, and drops it later', async () => {
    const reader = await direct.connect();
    try {
      await reader.query('BEGIN');
      await reader.query(`SELECT count(*) FROM ${table}`);
      const dropped = await partitions.dropBefore(table, new Date('2031-03-14T00:00:00Z'), {
        lockTimeoutMs: 20,
        attempts: 2,
      });
      expect(dropped).toEqual([]);
      // Nothing is left queued on the table: a write goes through while the reader still holds it.
      await direct.query(`INSERT INTO ${table} (at, note) VALUES ('2031-03-20T13:00:00Z', 'after')`);
    } finally {
      await reader.query('ROLLBACK');
      reader.release();
    }
    const dropped = await partitions.dropBefore(table, new Date('2031-03-14T00:00:00Z'));
    expect(dropped.map((p) => p.name)).toEqual([dayPartitionName(table, utcDay('2031-03-13'))]);
  });
});
