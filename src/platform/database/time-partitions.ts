import { Injectable, Logger } from '@nestjs/common';
import { Sql } from './sql';
import { read, write } from './sql-statement';
import { Transactions, type Tx } from './transactions';

/**
 * Tables partitioned by day (`PARTITION BY RANGE` over a `timestamptz` column, with a DEFAULT partition):
 * the one mechanism that makes their day partitions ahead, lists them, drops those wholly past a cutoff and
 * counts what landed in the default partition (docs/decisions/0153-events-partitioned-by-day.md).
 *
 * - Days are UTC days; a day's partition is `<table>_pYYYYMMDD`, the default one `<table>_default`. A
 *   partition made by hand or by a migration (e.g. the table from before partitioning, attached below a cut)
 *   is listed and dropped like the others by its bounds.
 * - Nothing here makes a writer wait longer than a bounded lock wait: a day is made as a table of its own
 *   and ATTACHed (SHARE UPDATE EXCLUSIVE on the parent: writers go on), rows the default partition holds
 *   for that day moved into it first; a drop takes the parent's ACCESS EXCLUSIVE lock (PostgreSQL refuses
 *   `DETACH … CONCURRENTLY` while a default partition exists) under a short `lock_timeout`, retried, so
 *   writers queue behind it for that long at most, and the drop itself is catalog work.
 * - Statements name tables, so their texts are built per table (identifiers checked, bounds literal: a
 *   partition bound takes no parameter) and run unnamed through the executor.
 */

/** One partition of a day-partitioned table. */
export interface TimePartition {
  name: string;
  /** Inclusive lower bound; null for one open below (MINVALUE). */
  from: Date | null;
  /** Exclusive upper bound. */
  to: Date;
}

/** What a drop does in its transaction before the DROP, holding the parent's lock (e.g. raise a mark). */
export type BeforeDrop = (tx: Tx, partition: TimePartition) => Promise<void>;

export interface DropOptions {
  /** How long one attempt may wait for the parent's lock. */
  lockTimeoutMs?: number;
  /** Attempts per partition before the pass gives up on it (the next pass tries again). */
  attempts?: number;
  beforeDrop?: BeforeDrop;
}

const DAY_MS = 86_400_000;
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;
const LOCK_NOT_AVAILABLE = '55P03';

/** The UTC day `at` falls on, as its first instant. */
export function dayStart(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

/** The name of `table`'s partition for the UTC day starting at `day`. */
export function dayPartitionName(table: string, day: Date): string {
  return `${checked(table)}_p${day.toISOString().slice(0, 10).replaceAll('-', '')}`;
}

export function defaultPartitionName(table: string): string {
  return `${checked(table)}_default`;
}

function checked(identifier: string): string {
  if (!IDENTIFIER.test(identifier)) throw new Error(`not a plain table name: ${identifier}`);
  return identifier;
}

/** A timestamptz literal of `at` (UTC, explicit offset: the session's time zone does not matter). */
function literal(at: Date): string {
  return `'${at.toISOString()}'::timestamptz`;
}

// Bounds come back as text in the session's time zone; cast back in the same session they are exact.
const LIST = read(
  `SELECT c.relname AS name,
          pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT' AS is_default,
          NULLIF(substring(pg_get_expr(c.relpartbound, c.oid) FROM 'FROM \\(''([^'']*)''\\)'), '')::timestamptz AS "from",
          substring(pg_get_expr(c.relpartbound, c.oid) FROM 'TO \\(''([^'']*)''\\)')::timestamptz AS "to"
     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = to_regclass($1)
    ORDER BY 4 NULLS LAST`,
  'time-partitions.list',
);

const LOCK_TIMEOUT = (ms: number): ReturnType<typeof write> =>
  write(`SET LOCAL lock_timeout = '${Math.max(1, Math.round(ms))}ms'`);

@Injectable()
export class TimePartitions {
  private readonly logger = new Logger('TimePartitions');

  constructor(
    private readonly sql: Sql,
    private readonly transactions: Transactions,
  ) {}

  /** `table`'s day partitions (and any other range one), oldest first; the default one is not listed. */
  async list(table: string): Promise<TimePartition[]> {
    const rows = await this.sql.rows<{
      name: string;
      is_default: boolean;
      from: Date | null;
      to: Date | null;
    }>(LIST, [checked(table)]);
    return rows
      .filter((row) => !row.is_default && row.to !== null)
      .map((row) => ({ name: row.name, from: row.from, to: row.to as Date }));
  }

  /**
   * Makes the partitions of the UTC days from the one `now` falls on through `days` days after it, those
   * that do not exist yet; resolves to the names made. Each day in a transaction of its own.
   */
  async makeDaysAhead(
    table: string,
    days: number,
    now: Date = new Date(),
    lockTimeoutMs = 1000,
  ): Promise<string[]> {
    const existing = await this.list(table);
    const made: string[] = [];
    const first = dayStart(now);
    for (let i = 0; i <= days; i++) {
      const from = new Date(first.getTime() + i * DAY_MS);
      const to = new Date(from.getTime() + DAY_MS);
      if (existing.some((p) => overlaps(p, from, to))) continue;
      const name = dayPartitionName(table, from);
      await this.withLockRetries(`make ${name}`, 3, () =>
        this.transactions.runAlone(async (tx) => {
          await tx.rowCount(LOCK_TIMEOUT(lockTimeoutMs));
          await this.makeDay(tx, table, name, from, to);
        }),
      );
      made.push(name);
    }
    return made;
  }

  /**
   * Drops each partition whose whole range lies before `cutoff`, oldest first, each in a transaction of its
   * own: the parent's lock under `lockTimeoutMs` (retried `attempts` times), `beforeDrop`, the DROP. Resolves
   * to the partitions dropped; one whose lock could not be had is left for the next pass.
   */
  async dropBefore(table: string, cutoff: Date, options: DropOptions = {}): Promise<TimePartition[]> {
    const { lockTimeoutMs = 100, attempts = 5, beforeDrop } = options;
    const dropped: TimePartition[] = [];
    for (const partition of await this.list(table)) {
      if (partition.to.getTime() > cutoff.getTime()) break;
      const done = await this.withLockRetries(`drop ${partition.name}`, attempts, () =>
        this.transactions.runAlone(async (tx) => {
          await tx.rowCount(LOCK_TIMEOUT(lockTimeoutMs));
          await tx.rowCount(write(`LOCK TABLE ${checked(table)} IN ACCESS EXCLUSIVE MODE`));
          await beforeDrop?.(tx, partition);
          await tx.rowCount(write(`DROP TABLE ${checked(partition.name)}`));
          return true;
        }),
      ).catch((error: unknown) => {
        if (!isLockTimeout(error)) throw error;
        return false;
      });
      // Oldest first: a later one is not dropped while an older one stays (a retention mark only rises).
      if (!done) break;
      dropped.push(partition);
    }
    return dropped;
  }

  /** How many rows `table`'s default partition holds (0 when every write found its day's partition). */
  async defaultRows(table: string): Promise<number> {
    const [row] = await this.sql.rows<{ rows: string }>(
      read(`SELECT count(*)::text AS rows FROM ${defaultPartitionName(table)}`),
    );
    return Number(row.rows);
  }

  /**
   * The day made as a table of its own, with the rows the default partition holds for it (writes that found
   * no partition) moved in, then attached: the parent stays open to writers (SHARE UPDATE EXCLUSIVE); the
   * default partition is locked while it is checked, normally empty. Row triggers are the parent's, cloned
   * at the attach: the moved rows are as they were.
   */
  private async makeDay(tx: Tx, table: string, name: string, from: Date, to: Date): Promise<void> {
    const key = await this.partitionKey(tx, table);
    await tx.rowCount(
      write(`CREATE TABLE ${name} (LIKE ${checked(table)} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`),
    );
    await tx.rowCount(
      write(`WITH moved AS (
               DELETE FROM ${defaultPartitionName(table)} WHERE ${key} >= ${literal(from)} AND ${key} < ${literal(to)}
               RETURNING *)
             INSERT INTO ${name} SELECT * FROM moved`),
    );
    await tx.rowCount(
      write(
        `ALTER TABLE ${checked(table)} ATTACH PARTITION ${name} FOR VALUES FROM (${literal(from)}) TO (${literal(to)})`,
      ),
    );
  }

  private async partitionKey(tx: Tx, table: string): Promise<string> {
    const [row] = await tx.rows<{ key: string }>(
      read(`SELECT a.attname AS key FROM pg_partitioned_table p
              JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
             WHERE p.partrelid = to_regclass($1)`),
      [checked(table)],
    );
    if (!row) throw new Error(`${table} is not a partitioned table`);
    return checked(row.key);
  }

  private async withLockRetries<T>(what: string, attempts: number, work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (error: unknown) {
        if (!isLockTimeout(error) || attempt >= attempts) throw error;
        this.logger.warn({ msg: 'partition lock not granted in time, retrying', what, attempt });
        // A pause before the next try lets the queue that formed behind the last one drain.
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  }
}

function overlaps(partition: TimePartition, from: Date, to: Date): boolean {
  const start = partition.from?.getTime() ?? Number.NEGATIVE_INFINITY;
  return start < to.getTime() && partition.to.getTime() > from.getTime();
}

function isLockTimeout(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === LOCK_NOT_AVAILABLE;
}
