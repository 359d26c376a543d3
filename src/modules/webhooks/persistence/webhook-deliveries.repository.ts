import { Injectable } from '@nestjs/common';
import { Sql } from '../../../platform/database/sql';
import { read, replicaRead, write } from '../../../platform/database/sql-statement';
import type { Tx } from '../../../platform/database/transactions';
import type { DeliveryError } from '../domain/attempt-outcome';
import type { DisabledReason, SealedSecrets } from '../domain/webhook-endpoint';
import { CONSECUTIVE_FAILURES_TO_DISABLE } from '../domain/webhook-endpoint';
import {
  IN_FLIGHT_PER_HEALTHY_ENDPOINT,
  IN_FLIGHT_PER_OTHER_ENDPOINT,
  type WebhookDelivery,
  type WebhookDeliveryStatus,
} from '../domain/webhook-delivery';
import { sealedSecretsOf } from './webhook-endpoints.repository';

/**
 * Every statement on the deliveries: the pending ones in `webhook_delivery_queue` (what the workers claim,
 * lease and record), the ended ones in `webhook_delivery_history` (partitioned by UTC day of `created_at`;
 * retention drops whole days). A delivery is in exactly one of them: the statement that ends it moves it, and
 * a manual retry moves it back (docs/decisions/0154-webhook-delivery-queue.md). The API reads both as one.
 */

/** The history's table, partitioned by day (TimePartitions). */
export const DELIVERY_HISTORY = 'webhook_delivery_history';

interface DeliveryRow {
  delivery_id: string;
  webhook_endpoint_id: string;
  event_id: string;
  event_type: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  last_response_status: number | null;
  last_error: DeliveryError | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `delivery_id, webhook_endpoint_id, event_id, event_type, status, attempts, next_attempt_at,
  last_attempt_at, last_response_status, last_error, created_at, updated_at`;

/** The queue's rows as the history's: every one is pending. */
const QUEUED = `SELECT delivery_id, webhook_endpoint_id, event_id, event_type, 'PENDING'::text AS status, attempts,
  next_attempt_at, last_attempt_at, last_response_status, last_error, created_at, updated_at
  FROM webhook_delivery_queue`;

/** Every delivery, pending or ended, as one relation. */
const ALL_DELIVERIES = `(${QUEUED} UNION ALL SELECT ${COLUMNS} FROM webhook_delivery_history)`;

const toDelivery = (row: DeliveryRow): WebhookDelivery => ({
  deliveryId: row.delivery_id,
  webhookEndpointId: row.webhook_endpoint_id,
  eventId: row.event_id,
  eventType: row.event_type,
  status: row.status,
  attempts: row.attempts,
  ...(row.last_attempt_at ? { lastAttemptAt: row.last_attempt_at } : {}),
  ...(row.status === 'PENDING' && row.next_attempt_at ? { nextAttemptAt: row.next_attempt_at } : {}),
  ...(row.last_response_status !== null ? { lastResponseStatus: row.last_response_status } : {}),
  ...(row.last_error ? { lastError: row.last_error } : {}),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** A delivery a worker leased: what it needs to make the attempt, and the token that proves the lease. */
export interface ClaimedDelivery {
  deliveryId: string;
  webhookEndpointId: string;
  eventId: string;
  eventType: string;
  url: string;
  secrets: SealedSecrets;
  /** The number of this attempt (1 for the first): counted when it was claimed, before it started. */
  attempt: number;
  singleAttempt: boolean;
  /** The endpoint's last attempt failed: this attempt is a probe, in the processor's slow slots. */
  probe: boolean;
  claimToken: string;
  createdAt: Date;
}

interface ClaimedRow {
  delivery_id: string;
  webhook_endpoint_id: string;
  event_id: string;
  event_type: string;
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  attempts: number;
  single_attempt: boolean;
  probe: boolean;
  created_at: Date;
}

/** A due delivery nobody holds (a lease that ran out is nobody's). */
const DUE_AND_FREE = `d.next_attempt_at <= now()
  AND (d.claimed_until IS NULL OR d.claimed_until <= now())`;

/**
 * Leases due deliveries of enabled endpoints, round robin: every endpoint's first due delivery before any
 * endpoint's second, so one endpoint's backlog never crowds out another's. Per endpoint, never more in
 * flight than its cap (a few while its last attempt succeeded, else one: a probe), counting every worker's
 * live leases. `$2`: how many from endpoints not failing (the processor's regular slots), `$3`: how many
 * probes of failing ones (its slow slots). The endpoints are locked (`FOR NO KEY UPDATE SKIP LOCKED`: the
 * key-share locks of inserted deliveries are not blocked) so two workers never fill the same endpoint's cap
 * at once; an endpoint another worker is leasing from is skipped, not waited for. The attempt is counted
 * here, as it starts: one cut short by a dead worker still counts. Whether an endpoint has a due delivery is
 * asked endpoint by endpoint (`LATERAL … LIMIT 1`, its first one by the pending index): asked as an `EXISTS`,
 * the planner read every due delivery of every endpoint, so each claim grew with the backlogs of receivers
 * that never answer. The picked rows are updated by their keys (`= ANY (ARRAY(…))`), so the update never
 * scans the table.
 */
const CLAIM = write(
  `WITH endpoints AS (
     SELECT e.webhook_endpoint_id, e.url, e.secret_sealed, e.previous_secret_sealed, e.previous_secret_expires_at,
            e.last_attempt_succeeded IS FALSE AS probe,
            CASE WHEN e.last_attempt_succeeded THEN ${IN_FLIGHT_PER_HEALTHY_ENDPOINT}
                 ELSE ${IN_FLIGHT_PER_OTHER_ENDPOINT} END AS cap
       FROM webhook_endpoints e
       CROSS JOIN LATERAL (SELECT 1 FROM webhook_delivery_queue d
                            WHERE d.webhook_endpoint_id = e.webhook_endpoint_id AND ${DUE_AND_FREE}
                            LIMIT 1) due
      WHERE e.status = 'ENABLED'
      FOR NO KEY UPDATE OF e SKIP LOCKED
   ), candidates AS (
     SELECT p.delivery_id, p.next_attempt_at, e.url, e.secret_sealed, e.previous_secret_sealed,
            e.previous_secret_expires_at, e.probe,
            row_number() OVER (PARTITION BY e.webhook_endpoint_id ORDER BY p.next_attempt_at) AS turn
       FROM endpoints e
       CROSS JOIN LATERAL (
         SELECT d.delivery_id, d.next_attempt_at FROM webhook_delivery_queue d
          WHERE d.webhook_endpoint_id = e.webhook_endpoint_id AND ${DUE_AND_FREE}
          ORDER BY d.next_attempt_at
          LIMIT greatest(0, e.cap - (
            SELECT count(*) FROM webhook_delivery_queue f
             WHERE f.webhook_endpoint_id = e.webhook_endpoint_id
               AND f.claimed_until IS NOT NULL AND f.claimed_until > now()))
          FOR UPDATE OF d SKIP LOCKED
       ) p
   ), picked AS (
     (SELECT * FROM candidates WHERE NOT probe ORDER BY turn, next_attempt_at LIMIT $2)
     UNION ALL
     (SELECT * FROM candidates WHERE probe ORDER BY turn, next_attempt_at LIMIT $3)
   ), claimed AS (
     UPDATE webhook_delivery_queue d
        SET claimed_until = clock_timestamp() + make_interval(secs => $4), claim_token = $1,
            attempts = d.attempts + 1, last_attempt_at = clock_timestamp(), updated_at = clock_timestamp()
      WHERE d.delivery_id = ANY (ARRAY(SELECT delivery_id FROM picked))
     RETURNING d.delivery_id, d.webhook_endpoint_id, d.event_id, d.event_type, d.attempts, d.single_attempt,
               d.created_at
   )
   SELECT c.delivery_id, c.webhook_endpoint_id, c.event_id, c.event_type, p.url, p.secret_sealed,
          p.previous_secret_sealed, p.previous_secret_expires_at, c.attempts, c.single_attempt, p.probe,
          c.created_at
     FROM claimed c JOIN picked p USING (delivery_id)`,
  'webhook-deliveries.claim',
);

/** Extends the leases a worker still holds (`$1` deliveries, `$2` their claim tokens) by `$3` seconds. */
const RENEW_LEASES = write(
  `UPDATE webhook_delivery_queue d SET claimed_until = clock_timestamp() + make_interval(secs => $3)
     FROM unnest($1::uuid[], $2::uuid[]) AS held (delivery_id, claim_token)
    WHERE d.delivery_id = held.delivery_id AND d.claim_token = held.claim_token`,
  'webhook-deliveries.renew-leases',
);

/**
 * An attempt's outcome, in one statement. A delivery still pending stays in the queue with its next attempt's
 * time; one that ended leaves the queue for the history (deleted by its key and claim token, so of two
 * workers holding it after a lease ran out only the current holder moves it, once). The endpoint's row is
 * key-share locked first (`owner`), as the insert into the history's foreign key would lock it after the
 * delivery's row: an endpoint being deleted (which deletes its deliveries after locking its row) is waited
 * for, not deadlocked with, and its deliveries are then gone. A delivery created before the history's
 * retention (`$10` days: pending that long, its endpoint disabled meanwhile) ends without a history row, as
 * retention would drop it at once: its day's partition is gone, and it would land in the default one. The
 * other pending deliveries a success makes due are taken `SKIP LOCKED` (one being recorded or claimed right now needs no help), so concurrent recordings never wait
 * on each other's rows; the endpoint's row is updated last, by every statement in the same order, and only
 * when something of it changes (its failure count, whether its last attempt succeeded), so a healthy
 * endpoint's row is not rewritten by every success.
 * `$3`: the delivery's new status; `$8`: the receiver answered 410; `$9`: failures that disable.
 */
const RECORD_ATTEMPT = write(
  `WITH owner AS (
     SELECT 1 FROM webhook_endpoints WHERE webhook_endpoint_id = $7 FOR KEY SHARE
   ), retried AS (
     UPDATE webhook_delivery_queue
        SET last_response_status = $4, last_error = $5,
            next_attempt_at = clock_timestamp() + make_interval(secs => $6::double precision / 1000),
            single_attempt = false, claimed_until = NULL, claim_token = NULL, updated_at = clock_timestamp()
      WHERE delivery_id = $1 AND claim_token = $2 AND $3 = 'PENDING' AND EXISTS (SELECT 1 FROM owner)
     RETURNING 1
   ), ended AS (
     DELETE FROM webhook_delivery_queue
      WHERE delivery_id = $1 AND claim_token = $2 AND $3 <> 'PENDING' AND EXISTS (SELECT 1 FROM owner)
     RETURNING delivery_id, webhook_endpoint_id, event_id, event_type, attempts, last_attempt_at, created_at
   ), kept AS (
     INSERT INTO webhook_delivery_history (delivery_id, webhook_endpoint_id, event_id, event_type, status,
                                           attempts, last_attempt_at, last_response_status, last_error,
                                           created_at, updated_at)
     SELECT delivery_id, webhook_endpoint_id, event_id, event_type, $3, attempts, last_attempt_at, $4, $5,
            created_at, clock_timestamp()
       FROM ended
      WHERE created_at >= now() - make_interval(days => $10)
   ), delivery AS (
     SELECT 1 FROM retried UNION ALL SELECT 1 FROM ended
   ), due_now AS (
     UPDATE webhook_delivery_queue SET next_attempt_at = now(), updated_at = clock_timestamp()
      WHERE delivery_id IN (
        SELECT w.delivery_id FROM webhook_delivery_queue w
         WHERE w.webhook_endpoint_id = $7 AND w.next_attempt_at > now()
           AND (w.claimed_until IS NULL OR w.claimed_until <= now())
           AND $3 = 'SUCCEEDED' AND EXISTS (SELECT 1 FROM delivery)
         FOR UPDATE SKIP LOCKED)
   ), before AS (
     SELECT status FROM webhook_endpoints WHERE webhook_endpoint_id = $7
   ), endpoint AS (
     UPDATE webhook_endpoints e
        SET consecutive_failures = CASE WHEN $3 = 'SUCCEEDED' THEN 0
                                        WHEN $3 = 'FAILED' THEN e.consecutive_failures + 1
                                        ELSE e.consecutive_failures END,
            last_attempt_succeeded = ($3 = 'SUCCEEDED'),
            status = CASE WHEN $3 = 'FAILED' AND ($8 OR e.consecutive_failures + 1 >= $9) THEN 'DISABLED'
                          ELSE e.status END,
            disabled_reason = CASE WHEN e.status = 'DISABLED' OR $3 <> 'FAILED' THEN e.disabled_reason
                                   WHEN $8 THEN 'GONE'
                                   WHEN e.consecutive_failures + 1 >= $9 THEN 'CONSECUTIVE_FAILURES'
                              END,
            version = e.version + CASE WHEN e.status = 'ENABLED' AND $3 = 'FAILED'
                                            AND ($8 OR e.consecutive_failures + 1 >= $9) THEN 1 ELSE 0 END,
            updated_at = CASE WHEN e.status = 'ENABLED' AND $3 = 'FAILED'
                                   AND ($8 OR e.consecutive_failures + 1 >= $9)
                              THEN clock_timestamp() ELSE e.updated_at END
      WHERE e.webhook_endpoint_id = $7 AND EXISTS (SELECT 1 FROM delivery)
        AND ($3 = 'FAILED' OR ($3 = 'SUCCEEDED' AND e.consecutive_failures <> 0)
             OR e.last_attempt_succeeded IS DISTINCT FROM ($3 = 'SUCCEEDED'))
     RETURNING e.status, e.disabled_reason
   )
   SELECT EXISTS (SELECT 1 FROM delivery) AS recorded,
          (SELECT endpoint.disabled_reason FROM endpoint, before
            WHERE endpoint.status = 'DISABLED' AND before.status = 'ENABLED') AS disabled`,
  'webhook-deliveries.record-attempt',
);

const OLDEST_PENDING_AGE = read(
  `SELECT extract(epoch FROM now() - min(d.created_at))::float8 AS age
     FROM webhook_delivery_queue d JOIN webhook_endpoints e USING (webhook_endpoint_id)
    WHERE e.status = 'ENABLED'`,
);

/**
 * The queue first: a delivery is in one table, and the history is many (its day partitions). `$2`, `$3`: the
 * range of `created_at` the id's own time names (ids made since 1763800021100 carry it), so that only the
 * partition of that day is planned and read; NULL for an id without it (one made before), read in every day.
 */
const READ = read(
  `(${QUEUED} WHERE delivery_id = $1)
   UNION ALL
   (SELECT ${COLUMNS} FROM webhook_delivery_history
     WHERE delivery_id = $1 AND ($2::timestamptz IS NULL OR created_at >= $2 AND created_at < $3))
   LIMIT 1`,
);

/**
 * How far a time a read is given may be from the row's `created_at`: an id's time and `created_at` are two
 * readings of the clock as the row is made; a time read back into JavaScript loses its microseconds.
 */
const ID_TIME_MARGIN_MS = 60_000;

/**
 * The millisecond a time-ordered id (UUID version 7: `uuid_v7()`, the queue's default) was made at; undefined
 * for an id that carries none (version 4).
 */
export function timeOfId(id: string): Date | undefined {
  if (id[14] !== '7') return undefined;
  return new Date(parseInt(id.slice(0, 8) + id.slice(9, 13), 16));
}

/** Every filter given must match (`$1` endpoint, `$2` event, `$3` status; NULL: any). */
const PAGE_FILTER = `($1::uuid IS NULL OR webhook_endpoint_id = $1) AND ($2::uuid IS NULL OR event_id = $2)
  AND ($3::text IS NULL OR status = $3)`;
const PAGE = replicaRead(
  `SELECT * FROM ${ALL_DELIVERIES} d WHERE ${PAGE_FILTER}
    ORDER BY created_at DESC, delivery_id DESC LIMIT $4 OFFSET $5`,
);
const PAGE_TOTAL = replicaRead(`SELECT count(*) AS total FROM ${ALL_DELIVERIES} d WHERE ${PAGE_FILTER}`);

/**
 * The delivery's row locked, where it is (queue or history), and its endpoint's status. The endpoint's row is
 * key-share locked first, as moving the delivery to the queue would lock it after (see RECORD_ATTEMPT).
 */
const LOCK_WITH_ENDPOINT = write(
  `WITH owner AS (
     SELECT e.webhook_endpoint_id, e.status FROM webhook_endpoints e
      WHERE e.webhook_endpoint_id IN (SELECT webhook_endpoint_id FROM webhook_delivery_queue WHERE delivery_id = $1
                                      UNION ALL
                                      SELECT webhook_endpoint_id FROM webhook_delivery_history WHERE delivery_id = $1)
      FOR KEY SHARE OF e
   ), queued AS (
     ${QUEUED.replace('FROM webhook_delivery_queue', 'FROM webhook_delivery_queue d')}
      WHERE d.delivery_id = $1 AND EXISTS (SELECT 1 FROM owner)
     FOR NO KEY UPDATE OF d
   ), ended AS (
     SELECT ${COLUMNS.replace(/(\w+)/g, 'h.$1')} FROM webhook_delivery_history h
      WHERE h.delivery_id = $1 AND EXISTS (SELECT 1 FROM owner)
     FOR NO KEY UPDATE OF h
   )
   SELECT d.*, o.status AS endpoint_status
     FROM (SELECT * FROM queued UNION ALL SELECT * FROM ended) d JOIN owner o USING (webhook_endpoint_id)`,
);

/**
 * An ended delivery back to the queue, due now, for one attempt. `$2`, `$3`: around its `created_at` (read to
 * the millisecond), so that only its day's partition is read.
 */
const RETRY_NOW = write(
  `WITH ended AS (
     DELETE FROM webhook_delivery_history WHERE delivery_id = $1 AND created_at >= $2 AND created_at < $3
     RETURNING delivery_id, webhook_endpoint_id, event_id, event_type, attempts, last_attempt_at,
               last_response_status, last_error, created_at
   )
   INSERT INTO webhook_delivery_queue (delivery_id, webhook_endpoint_id, event_id, event_type, attempts,
                                       next_attempt_at, last_attempt_at, last_response_status, last_error,
                                       single_attempt, created_at, updated_at)
   SELECT delivery_id, webhook_endpoint_id, event_id, event_type, attempts, now(), last_attempt_at,
          last_response_status, last_error, true, created_at, clock_timestamp()
     FROM ended
   RETURNING ${COLUMNS.replace('status', "'PENDING'::text AS status")}`,
);

/**
 * Deletes rows created before `$1`, `$2` at most, from a partition of the history that is not one day (the
 * default one; the table from before partitioning, attached below the cut). The history only: a pending
 * delivery, however old, is in the queue and never purged.
 */
function purgeRowsSql(partition: string): string {
  if (!/^webhook_deliver[a-z0-9_]+$/.test(partition)) {
    throw new Error(`not a partition of the delivery history: ${partition}`);
  }
  return `DELETE FROM ${partition} WHERE (delivery_id, created_at) IN (
     SELECT delivery_id, created_at FROM ${partition} WHERE created_at < $1
      LIMIT $2 FOR UPDATE SKIP LOCKED)`;
}

/** What an attempt made of the delivery. */
export interface AttemptRecord {
  status: WebhookDeliveryStatus;
  responseStatus: number | undefined;
  error: DeliveryError | undefined;
  /** While PENDING: when to try again. */
  retryInMs?: number;
}

/** What the end of an attempt did to the endpoint. */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Leases due deliveries (CLAIM): up to `slots.regular` from endpoints not failing and `slots.slow` probes
   * of failing ones; the lease holds once `tx` commits, and each counts as an attempt.
   */
  async claim(
    tx: Tx,
    slots: { regular: number; slow: number },
    leaseSeconds: number,
    claimToken: string,
  ): Promise<ClaimedDelivery[]> {
    const regular = Math.max(0, slots.regular);
    const slow = Math.max(0, slots.slow);
    if (regular + slow === 0) return [];
    const rows = await tx.rows<ClaimedRow>(CLAIM, [claimToken, regular, slow, leaseSeconds]);
    return rows.map((row) => ({
      deliveryId: row.delivery_id,
      webhookEndpointId: row.webhook_endpoint_id,
      eventId: row.event_id,
      eventType: row.event_type,
      url: row.url,
      secrets: sealedSecretsOf(row),
      attempt: row.attempts,
      singleAttempt: row.single_attempt,
      probe: row.probe,
      claimToken,
      createdAt: row.created_at,
    }));
  }

  /** Extends the leases of `held` (deliveries this worker is sending) by `leaseSeconds` from now. */
  async renewLeases(
    tx: Tx,
    held: ReadonlyArray<{ deliveryId: string; claimToken: string }>,
    leaseSeconds: number,
  ): Promise<void> {
    if (held.length === 0) return;
    await tx.rowCount(RENEW_LEASES, [
      held.map((h) => h.deliveryId),
      held.map((h) => h.claimToken),
      leaseSeconds,
    ]);
  }

  /**
   * Records an attempt of a delivery this worker still holds (a lease lost to another worker writes
   * nothing: `recorded` false), and what it means for the endpoint: a success resets its failure count and
   * makes its other pending deliveries due now; a final failure counts, and disables it at the limit or on
   * 410 Gone (`disabled`: the reason, when this attempt disabled it). One statement, so the endpoint's row is
   * locked only for the moment it takes. `historyDays`: how long the history keeps a delivery after its
   * creation (an older one ending is not kept).
   */
  async recordAttempt(
    tx: Tx,
    claimed: ClaimedDelivery,
    attempt: AttemptRecord,
    endpointGone: boolean,
    historyDays: number,
  ): Promise<{ recorded: boolean; disabled?: DisabledReason }> {
    const [row] = await tx.rows<{ recorded: boolean; disabled: DisabledReason | null }>(RECORD_ATTEMPT, [
      claimed.deliveryId,
      claimed.claimToken,
      attempt.status,
      attempt.responseStatus ?? null,
      attempt.error ?? null,
      attempt.retryInMs ?? 0,
      claimed.webhookEndpointId,
      endpointGone,
      CONSECUTIVE_FAILURES_TO_DISABLE,
      historyDays,
    ]);
    return { recorded: row.recorded, ...(row.disabled ? { disabled: row.disabled } : {}) };
  }

  /** Seconds since the oldest delivery still pending to an enabled endpoint was created (0 when none). */
  async oldestPendingAgeSeconds(): Promise<number> {
    const [row] = await this.sql.rows<{ age: number | null }>(OLDEST_PENDING_AGE);
    return Math.max(0, row?.age ?? 0);
  }

  async read(deliveryId: string): Promise<WebhookDelivery | undefined> {
    const at = timeOfId(deliveryId);
    const [row] = await this.sql.rows<DeliveryRow>(READ, [
      deliveryId,
      at ? new Date(at.getTime() - ID_TIME_MARGIN_MS) : null,
      at ? new Date(at.getTime() + ID_TIME_MARGIN_MS) : null,
    ]);
    return row ? toDelivery(row) : undefined;
  }

  /** A page of deliveries, newest first, with the total; every filter given must match. */
  async page(
    filters: { webhookEndpointId?: string; eventId?: string; status?: WebhookDeliveryStatus },
    window: { limit: number; offset: number },
  ): Promise<{ deliveries: WebhookDelivery[]; total: number }> {
    const values = [filters.webhookEndpointId ?? null, filters.eventId ?? null, filters.status ?? null];
    const [rows, [{ total }]] = await Promise.all([
      this.sql.rows<DeliveryRow>(PAGE, [...values, window.limit, window.offset]),
      this.sql.rows<{ total: string }>(PAGE_TOTAL, values),
    ]);
    return { deliveries: rows.map(toDelivery), total: Number(total) };
  }

  /**
   * The delivery and whether its endpoint is enabled, the delivery's row locked. A delivery that moved
   * between the queue and the history while this waited for its lock (it ended, or another retry sent it
   * back) is not in the statement's snapshot where it now is: it is read once more, with a new snapshot.
   */
  async lockWithEndpoint(
    tx: Tx,
    deliveryId: string,
  ): Promise<{ delivery: WebhookDelivery; endpointEnabled: boolean } | undefined> {
    for (let read = 0; read < 2; read++) {
      const [row] = await tx.rows<DeliveryRow & { endpoint_status: string }>(LOCK_WITH_ENDPOINT, [
        deliveryId,
      ]);
      if (row) return { delivery: toDelivery(row), endpointEnabled: row.endpoint_status === 'ENABLED' };
    }
    return undefined;
  }

  /**
   * One more attempt now of an ended delivery (locked by `lockWithEndpoint`), outside the schedule: it goes
   * back to the queue, and after that attempt it ends whatever happens.
   */
  async retryNow(tx: Tx, delivery: WebhookDelivery): Promise<WebhookDelivery> {
    const at = delivery.createdAt.getTime();
    const rows = await tx.rows<DeliveryRow>(RETRY_NOW, [
      delivery.deliveryId,
      new Date(at - ID_TIME_MARGIN_MS),
      new Date(at + ID_TIME_MARGIN_MS),
    ]);
    return toDelivery(rows[0]);
  }

  /**
   * Deletes up to `limit` deliveries created before `cutoff` from `partition`, a partition of the history
   * that is not one day (whole days are dropped); how many.
   */
  async purgeRowsBefore(tx: Tx, partition: string, cutoff: Date, limit: number): Promise<number> {
    return tx.rowCount(write(purgeRowsSql(partition)), [cutoff, limit]);
  }
}
