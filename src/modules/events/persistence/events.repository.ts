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
          (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM events_sequence)::text AS latest
     FROM events_horizon() h`,
  'events.horizon',
);

const PURGE_OLDEST = write(
  `WITH oldest AS (
     SELECT event_id, occurred_at FROM events WHERE sequence IS NOT NULL ORDER BY sequence LIMIT $2
   ), gone AS (
     DELETE FROM events e USING oldest o
      WHERE e.event_id = o.event_id AND o.occurred_at < now() - make_interval(days => $1)
     RETURNING e.sequence
   ), mark AS (
     UPDATE event_retention SET purged_through = GREATEST(purged_through, (SELECT max(sequence) FROM gone))
      WHERE EXISTS (SELECT 1 FROM gone)
   )
   SELECT count(*)::int AS deleted FROM gone`,
);

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
  async feedHorizon(tx: Tx): Promise<number> {
    return (await this.feedHorizonAndLatest(tx)).horizon;
  }

  /**
   * The feed's horizon and the latest number given, read after it: `latest` above `horizon` means events were
   * numbered that the horizon does not cover yet (their transactions, or others beside them, still
   * committing, or the horizon kept within its interval): a follower woken for them looks again shortly.
   */
  async feedHorizonAndLatest(tx: Tx): Promise<{ horizon: number; latest: number }> {
    const [row] = await tx.rows<{ horizon: string; latest: string }>(FEED_HORIZON);
    return { horizon: Number(row.horizon), latest: Number(row.latest) };
  }

  /**
   * Up to `limit` events after `after` matching `filter`, oldest first, up to `horizon` (`feedHorizon`, read
   * by an earlier statement, so that the page's snapshot, taken later, sees every event up to it), with the
   * highest sequence retention has deleted (read with the page).
   */
  async feedPage(
    after: number,
    filter: FeedFilter,
    limit: number,
    horizon: number,
  ): Promise<{ events: StoredEvent[]; purgedThrough: number }> {
    const values: unknown[] = [after, limit, horizon];
    const where = ['e.sequence > $1', 'e.sequence <= $3'];
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
    // Unnamed, planned for its values: a generic plan cannot tell a rare type or customer (their own index)
    // from a common one (the sequence index).
    const rows = await this.sql.rows<EventRow & { purged_through: string }>(
      read(`SELECT r.purged_through::text AS purged_through, p.*
         FROM event_retention r LEFT JOIN LATERAL (
           SELECT ${EVENT_COLUMNS} FROM events e WHERE ${where.join(' AND ')}
           ORDER BY e.sequence LIMIT $2) p ON true
         ORDER BY p.sequence::bigint`),
      values,
    );
    const first = rows[0];
    return {
      events: rows.filter((row) => row.event_id !== null).map(toEvent),
      purgedThrough: Number(first.purged_through),
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
   * Deletes up to `limit` of the oldest events that occurred more than `days` ago and raises the retention
   * mark to the highest sequence deleted, in one statement; resolves to how many it deleted. Only the
   * oldest `limit` by sequence are looked at, so a pass reads a bounded range however many events are kept
   * (an old event behind a younger one waits for it).
   */
  async purgeOlderThan(tx: Tx, days: number, limit: number): Promise<number> {
    const [row] = await tx.rows<{ deleted: number }>(PURGE_OLDEST, [days, limit]);
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
