import { Injectable } from '@nestjs/common';
import { Sql } from '../../../platform/database/sql';
import { read, write } from '../../../platform/database/sql-statement';
import type { Tx } from '../../../platform/database/transactions';
import type { FeedFilter, NewTaskEvent, OrderEventOf, StoredEvent } from '../domain/event';
import type { EventType } from '../domain/event-types';

/**
 * The key of the advisory lock events are numbered under at commit: writers take it in shared mode until
 * their commit is visible (the migrations 1763800016000-events and 1763800016100); the feed's horizon and
 * the feed-lag metric look at its holders, and nothing waits for it (1763800019000).
 */
export const EVENT_NUMBERING_LOCK = 7_305_416_350;

/**
 * The outbox insert of order events: one event per row of `source` (the columns of an `OrderBody`: the
 * order's id, customer and v1 body as JSON text, rendered by the statement that wrote the change), its
 * type and actor at `$firstParam` and the next parameter (`orderEventValues`). A data-modifying CTE (or the
 * statement itself) of the write, so the event commits with the change or not at all.
 */
export function orderEventsSql(source: string, firstParam: number): string {
  return `INSERT INTO events (type, order_id, customer_id, actor_id, data)
    SELECT $${firstParam}::text, s."orderId", s."customerId", $${firstParam + 1}::uuid, s.json::jsonb
    FROM ${source} s`;
}

export function orderEventValues(event: OrderEventOf): [string, string] {
  return [event.type, event.actorId];
}

interface EventRow {
  event_id: string;
  sequence: string;
  type: EventType;
  occurred_at: Date;
  order_id: string | null;
  task_id: string | null;
  customer_id: string | null;
  actor_id: string | null;
  data: Record<string, unknown>;
}

const EVENT_COLUMNS =
  'e.event_id, e.sequence::text AS sequence, e.type, e.occurred_at, e.order_id, e.task_id, e.customer_id, e.actor_id, e.data';

function toEvent(row: EventRow): StoredEvent {
  const event: StoredEvent = {
    eventId: row.event_id,
    type: row.type,
    sequence: Number(row.sequence),
    occurredAt: row.occurred_at,
    data: row.data,
  };
  if (row.order_id) event.orderId = row.order_id;
  if (row.task_id) event.taskId = row.task_id;
  if (row.customer_id) event.customerId = row.customer_id;
  if (row.actor_id) event.actorId = row.actor_id;
  return event;
}

const INSERT_TASK_EVENTS = write(
  `INSERT INTO events (type, task_id, customer_id, actor_id, data)
   SELECT * FROM unnest($1::text[], $2::uuid[], $3::uuid[], $4::uuid[], $5::jsonb[])`,
);

const READ_EVENTS = read(
  `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.event_id = ANY ($1::uuid[]) AND e.sequence IS NOT NULL`,
);

const READ_EVENT = read(
  `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.event_id = $1 AND e.sequence IS NOT NULL`,
  'events.read',
);

const ORDER_PAGE = read(
  `SELECT (SELECT count(*) FROM events WHERE order_id = $1 AND sequence IS NOT NULL)::int AS total, p.*
   FROM (SELECT 1) one LEFT JOIN LATERAL (
     SELECT ${EVENT_COLUMNS} FROM events e WHERE e.order_id = $1 AND e.sequence IS NOT NULL
     ORDER BY e.sequence LIMIT $2 OFFSET $3) p ON true`,
  'events.order-page',
);

const NUMBERING_HOLD = read(
  `SELECT COALESCE(EXTRACT(EPOCH FROM clock_timestamp() - min(a.xact_start)), 0)::float8 AS seconds
   FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
   WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
     AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
     AND ((l.classid::bigint << 32) | l.objid::bigint) = $1`,
  'events.numbering-hold',
);

/**
 * The feed's horizon (`events_horizon()`, migration 1763800019000): a number every transaction that had
 * numbered events up to it has ended by; every event up to it is visible from then on, or never will be.
 * Found by watching the numbering lock's holders, never by waiting for it, and kept in a row by whichever
 * follower gets the row's lock. A write: it updates that row.
 */
const FEED_HORIZON = write(
  `SELECT h::text AS horizon,
          (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM events_sequence)::text AS latest,
          clock_timestamp() AS at
     FROM events_horizon() h`,
  'events.horizon',
);

/**
 * The stretch of events a feed page after `$1` reads (the marks of migration 1763800020000): `since`, the
 * floor of the last mark at or below it (every later event began then or after; none: no floor), and the
 * first mark at least `$2` past it (every event up to its `sequence` began before its `recorded_at`; none:
 * the page reads up to the horizon). With the retention mark, which moves `$1` up.
 */
const FEED_WINDOW = read(
  `SELECT (SELECT m.floor FROM event_sequence_marks m
            WHERE m.sequence <= GREATEST($1, r.purged_through) ORDER BY m.sequence DESC LIMIT 1) AS since,
          u.sequence::text AS until_sequence, u.recorded_at AS until_at
     FROM (SELECT purged_through FROM event_retention LIMIT 1) r
     LEFT JOIN LATERAL (SELECT m.sequence, m.recorded_at FROM event_sequence_marks m
                         WHERE m.sequence >= GREATEST($1, r.purged_through) + $2
                         ORDER BY m.sequence LIMIT 1) u ON true`,
  'events.feed-window',
);

/**
 * A mark (migration 1763800020000): the oldest transaction open now (read first, less a margin for one
 * that had begun but was not listed yet), then the latest number given, then the time. Every event numbered
 * after that number was open when the first read was made, or began after it.
 */
const OPEN_SINCE = read(
  `SELECT least(min(xact_start), clock_timestamp()) - interval '1 minute' AS floor
     FROM pg_stat_activity WHERE datname = current_database()`,
);
const RECORD_MARK = write(
  `INSERT INTO event_sequence_marks (sequence, floor, recorded_at)
   SELECT CASE WHEN is_called THEN last_value ELSE 0 END, $1, clock_timestamp() FROM events_sequence
   ON CONFLICT (sequence) DO NOTHING`,
);
// Marks below the retention mark are no longer needed, but the last of them (the floor of the first cursors).
const FORGET_MARKS = write(
  `DELETE FROM event_sequence_marks WHERE sequence < (
     SELECT max(m.sequence) FROM event_sequence_marks m, event_retention r WHERE m.sequence <= r.purged_through)`,
);

/** Before a day's partition is dropped: the retention mark raised to the highest number in it. */
const MARK_PARTITION_PURGED = write(
  `UPDATE event_retention SET purged_through = GREATEST(purged_through, (
     SELECT max(sequence) FROM events
      WHERE occurred_at >= COALESCE($1::timestamptz, '-infinity') AND occurred_at < $2 AND sequence IS NOT NULL))`,
);

/**
 * Rows of a partition that is not one day (the default one; the table from before partitioning, attached
 * below its cut) past the retention cutoff: deleted in bounded batches, the oldest by sequence looked at
 * (as retention did before partitioning), with the mark raised. The partition's name is the catalog's.
 */
function purgeRowsSql(partition: string): string {
  if (!/^events_[a-z0-9_]+$/.test(partition)) throw new Error(`not an events partition: ${partition}`);
  return `WITH oldest AS (
     SELECT event_id, occurred_at FROM ${partition} WHERE sequence IS NOT NULL ORDER BY sequence LIMIT $2
   ), gone AS (
     DELETE FROM ${partition} e USING oldest o
      WHERE e.event_id = o.event_id AND e.occurred_at = o.occurred_at AND o.occurred_at < $1
     RETURNING e.sequence
   ), mark AS (
     UPDATE event_retention SET purged_through = GREATEST(purged_through, (SELECT max(sequence) FROM gone))
      WHERE EXISTS (SELECT 1 FROM gone)
   )
   SELECT count(*)::int AS deleted FROM gone`;
}

/** Clock steps between the writers' and the readers' time (both the database server's). */
const CLOCK_MARGIN_MS = 60_000;
/**
 * How much longer, in numbers, each stretch of a page is than the one before. A filtered page starts this much
 * longer than the page itself, since its filter selects a fraction of the events: a rare one fills its page in
 * a few stretches, not many (each is two statements). A stretch longer than needed costs only the planning
 * of the days it spans; the page's LIMIT stops the reading.
 */
const WINDOW_GROWTH = 32;

/** The feed's horizon and the time it was read: every event numbered up to it began before then. */
export interface FeedHorizon {
  horizon: number;
  at: Date;
}

/**
 * Every statement on `events` and `event_retention`. Only numbered events (`sequence` set, at commit) are
 * read: an unnumbered row is one the reading transaction wrote itself.
 */
@Injectable()
export class EventsRepository {
  constructor(private readonly sql: Sql) {}

  /** Records task events in the caller's transaction (one statement). */
  async insertTaskEvents(tx: Tx, events: readonly NewTaskEvent[]): Promise<void> {
    if (events.length === 0) return;
    await tx.rowCount(INSERT_TASK_EVENTS, [
      events.map((e) => e.type),
      events.map((e) => e.taskId),
      events.map((e) => e.customerId ?? null),
      events.map((e) => e.actorId ?? null),
      events.map((e) => JSON.stringify(e.data)),
    ]);
  }

  /** The numbered events among `eventIds` (one still kept and committed), in no particular order. */
  async readMany(eventIds: readonly string[]): Promise<StoredEvent[]> {
    const rows = await this.sql.rows<EventRow>(READ_EVENTS, [eventIds]);
    return rows.map(toEvent);
  }

  async read(eventId: string): Promise<StoredEvent | undefined> {
    const [row] = await this.sql.rows<EventRow>(READ_EVENT, [eventId]);
    return row && toEvent(row);
  }

  /**
   * The feed's horizon (FEED_HORIZON), for feed pages and subscribers alike. `tx` must be a transaction of
   * its own that ends at once (`runAlone`): the kept row's lock, which other followers skip, lasts as long
   * as `tx`.
   */
  async feedHorizon(tx: Tx): Promise<FeedHorizon> {
    const { horizon, at } = await this.feedHorizonAndLatest(tx);
    return { horizon, at };
  }

  /**
   * The feed's horizon and the latest number given, read after it: `latest` above `horizon` means events were
   * numbered that the horizon does not cover yet (their transactions, or others beside them, still
   * committing, or the horizon kept within its interval): a follower woken for them looks again shortly.
   */
  async feedHorizonAndLatest(tx: Tx): Promise<FeedHorizon & { latest: number }> {
    const [row] = await tx.rows<{ horizon: string; latest: string; at: Date }>(FEED_HORIZON);
    return { horizon: Number(row.horizon), latest: Number(row.latest), at: row.at };
  }

  /**
   * Up to `limit` events after `after` (and after the retention mark) matching `filter`, oldest first, up to
   * `horizon` (`feedHorizon`, read by an earlier statement, so that the page's snapshot, taken later, sees
   * every event up to it), with the highest sequence retention has deleted (read with the page).
   *
   * The page reads only the days that can hold its events: the marks map `after` to a floor on
   * `occurred_at` and a number some way past it to a ceiling (FEED_WINDOW), and every event up to the horizon
   * began before the horizon was read; both are parameters of an unnamed statement, so the planner prunes the
   * other partitions. When that stretch holds fewer events than the page wants (a rare filter), the next,
   * wider one is read, until the page is full or the horizon is reached.
   */
  async feedPage(
    after: number,
    filter: FeedFilter,
    limit: number,
    horizon: FeedHorizon,
  ): Promise<{ events: StoredEvent[]; purgedThrough: number }> {
    const events: StoredEvent[] = [];
    let from = after;
    const filtered = Boolean(filter.types?.length || filter.orderId || filter.customerId);
    let span = filtered ? limit * WINDOW_GROWTH : limit;
    let purgedThrough: number | undefined;
    for (;;) {
      const [window] = await this.sql.rows<{
        since: Date | null;
        until_sequence: string | null;
        until_at: Date | null;
      }>(FEED_WINDOW, [from, span]);
      const untilSequence = window.until_sequence === null ? Infinity : Number(window.until_sequence);
      const bounded = untilSequence < horizon.horizon;
      const upTo = bounded ? untilSequence : horizon.horizon;
      const before = new Date(((bounded ? window.until_at : null) ?? horizon.at).getTime() + CLOCK_MARGIN_MS);
      const since = window.since === null ? '-infinity' : new Date(window.since.getTime());
      const page = await this.pageBetween(from, upTo, since, before, filter, limit - events.length);
      purgedThrough ??= page.purgedThrough;
      events.push(...page.events);
      if (events.length >= limit || !bounded) break;
      from = upTo;
      span *= WINDOW_GROWTH;
    }
    return { events, purgedThrough: purgedThrough ?? 0 };
  }

  private async pageBetween(
    after: number,
    upTo: number,
    since: Date | string,
    before: Date,
    filter: FeedFilter,
    limit: number,
  ): Promise<{ events: StoredEvent[]; purgedThrough: number }> {
    const values: unknown[] = [after, limit, upTo, since, before];
    const where = [
      'e.sequence > GREATEST($1, r.purged_through)',
      'e.sequence <= $3',
      'e.occurred_at >= $4::timestamptz',
      'e.occurred_at < $5::timestamptz',
    ];
    if (filter.types?.length) {
      values.push(filter.types);
      where.push(`e.type = ANY($${values.length}::text[])`);
    }
    if (filter.orderId) {
      values.push(filter.orderId);
      where.push(`e.order_id = $${values.length}`);
    }
    if (filter.customerId) {
      values.push(filter.customerId);
      where.push(`e.customer_id = $${values.length}`);
    }
    // Unnamed, planned for its values: the partitions outside the stretch are pruned when it is planned, and
    // a generic plan could not tell a rare type or customer (their own index) from a common one. The mark's
    // row is one (LIMIT 1 says so): estimated as a table never analyzed, it multiplied the page's cost past
    // the JIT threshold, and compiling took far longer than reading the page.
    const rows = await this.sql.rows<EventRow & { purged_through: string }>(
      read(`SELECT r.purged_through::text AS purged_through, p.*
         FROM (SELECT purged_through FROM event_retention LIMIT 1) r LEFT JOIN LATERAL (
           SELECT ${EVENT_COLUMNS} FROM events e WHERE ${where.join(' AND ')}
           ORDER BY e.sequence LIMIT $2) p ON true
         ORDER BY p.sequence::bigint`),
      values,
    );
    return {
      events: rows.filter((row) => row.event_id !== null).map(toEvent),
      purgedThrough: Number(rows[0].purged_through),
    };
  }

  /** A page of an order's events, oldest first, and how many it has. */
  async orderPage(
    orderId: string,
    paging: { limit: number; offset: number },
  ): Promise<{ events: StoredEvent[]; total: number }> {
    const rows = await this.sql.rows<EventRow & { total: number }>(ORDER_PAGE, [
      orderId,
      paging.limit,
      paging.offset,
    ]);
    return {
      events: rows.filter((row) => row.event_id !== null).map(toEvent),
      total: rows[0]?.total ?? 0,
    };
  }

  /**
   * Records a mark (the latest number given, the floor of what is numbered after it) for the feed's pages:
   * run by the maintenance job. Reads the open transactions first, then the number, in one transaction.
   */
  async recordMark(tx: Tx): Promise<void> {
    const [open] = await tx.rows<{ floor: Date }>(OPEN_SINCE);
    await tx.rowCount(RECORD_MARK, [open.floor]);
    await tx.rowCount(FORGET_MARKS);
  }

  /**
   * Raises the retention mark to the highest number in the partition about to be dropped (its range): in the
   * dropping transaction, holding the table's lock. Neighbouring days overlap in numbers (an event's time is
   * its transaction's start, its number given at commit): the mark is the highest number dropped, and
   * events kept below it are no longer served by the feed.
   */
  async markPartitionPurged(tx: Tx, from: Date | null, to: Date): Promise<void> {
    await tx.rowCount(MARK_PARTITION_PURGED, [from, to]);
  }

  /**
   * Deletes rows older than `cutoff` among the `limit` oldest of `partition` (one that is not a day: the
   * default one, the table from before partitioning), raising the mark; resolves to how many.
   */
  async purgeRowsBefore(tx: Tx, partition: string, cutoff: Date, limit: number): Promise<number> {
    const [row] = await tx.rows<{ deleted: number }>(write(purgeRowsSql(partition)), [cutoff, limit]);
    return row.deleted;
  }

  /**
   * How long the oldest transaction holding numbered events uncommitted has been open (0: none): events
   * numbered after its number wait for its end to be served.
   */
  async numberingHoldSeconds(): Promise<number> {
    const [row] = await this.sql.rows<{ seconds: number }>(NUMBERING_HOLD, [EVENT_NUMBERING_LOCK]);
    return row.seconds;
  }
}
