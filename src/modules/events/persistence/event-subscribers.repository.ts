import { Injectable } from '@nestjs/common';
import { Sql } from '../../../platform/database/sql';
import { read, write } from '../../../platform/database/sql-statement';
import type { Tx } from '../../../platform/database/transactions';

/** Every statement on `event_subscribers` (migration 1763800018000). */

/** A consumer's row, locked for one batch: the lock is its runner's lease. */
export interface SubscriberPosition {
  position: number;
  /** While a failed batch waits for its retry. */
  nextAttemptAt: Date | null;
}

const REGISTER = write(
  'INSERT INTO event_subscribers (name, position) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING',
);

// SKIP LOCKED: another runner holds it for a batch; this one passes.
const LOCK = write(
  `SELECT position::text AS position, next_attempt_at FROM event_subscribers
    WHERE name = $1 FOR UPDATE SKIP LOCKED`,
  'event-subscribers.lock',
);

const ADVANCE = write(
  `UPDATE event_subscribers
      SET position = $2, attempts = 0, next_attempt_at = NULL, last_error = NULL, updated_at = clock_timestamp()
    WHERE name = $1`,
  'event-subscribers.advance',
);

const FAILED = write(
  `UPDATE event_subscribers
      SET attempts = attempts + 1, last_error = left($2, 500), updated_at = clock_timestamp(),
          next_attempt_at = clock_timestamp() + make_interval(secs => least($4::float8, $3::float8 * 2 ^ attempts) / 1000)
    WHERE name = $1
   RETURNING attempts, next_attempt_at`,
);

const LAG = read(
  `SELECT s.name, COALESCE(EXTRACT(EPOCH FROM clock_timestamp() - (
            SELECT e.occurred_at FROM events e WHERE e.sequence > s.position ORDER BY e.sequence LIMIT 1)), 0)::float8
          AS seconds
     FROM event_subscribers s ORDER BY s.name`,
  'event-subscribers.lag',
);

@Injectable()
export class EventSubscribersRepository {
  constructor(private readonly sql: Sql) {}

  /** Gives a new consumer its row, at `position`; an existing one keeps its own. */
  async register(tx: Tx, name: string, position: number): Promise<void> {
    await tx.rowCount(REGISTER, [name, position]);
  }

  /** The consumer's row, locked until `tx` ends; undefined when another runner holds it. */
  async lock(tx: Tx, name: string): Promise<SubscriberPosition | undefined> {
    const [row] = await tx.rows<{ position: string; next_attempt_at: Date | null }>(LOCK, [name]);
    return row && { position: Number(row.position), nextAttemptAt: row.next_attempt_at };
  }

  /** The batch is handled: the position moves past it, and the failure count is reset. */
  async advance(tx: Tx, name: string, position: number): Promise<void> {
    await tx.rowCount(ADVANCE, [name, position]);
  }

  /** A batch failed: the next try waits `firstMs` doubled by each failure before it, `maxMs` at most. */
  async failed(
    tx: Tx,
    name: string,
    error: string,
    backoff: { firstMs: number; maxMs: number },
  ): Promise<{ attempts: number; nextAttemptAt: Date }> {
    const [row] = await tx.rows<{ attempts: number; next_attempt_at: Date }>(FAILED, [
      name,
      error,
      backoff.firstMs,
      backoff.maxMs,
    ]);
    return { attempts: row.attempts, nextAttemptAt: row.next_attempt_at };
  }

  /** Per consumer, how long the oldest event it has not handled has waited (0: caught up). */
  async lagSeconds(): Promise<Array<{ name: string; seconds: number }>> {
    return this.sql.rows<{ name: string; seconds: number }>(LAG);
  }
}
