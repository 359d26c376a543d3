import { Injectable } from '@nestjs/common';
import { write } from '../../../platform/database/sql-statement';
import type { Tx } from '../../../platform/database/transactions';
import type { StoredEvent } from '../../events/domain/event';

/**
 * The deliveries of a batch of events: for each event, each endpoint whose state after its last change
 * numbered before the event (`webhook_endpoint_changes`, numbered at commit in the events' order: migration
 * 1763800018100) was enabled and subscribed to the event's type. Changes from `$4` (the batch's highest
 * sequence) on cannot concern the batch, and every change below it is visible (the batch ends at the feed's
 * horizon). The deliveries go to the queue, where the workers claim them. A delivery already made is left
 * alone, so an endpoint gets one delivery of an event however often its batch is handed: one pending is in
 * the queue (its unique endpoint-and-event key, `ON CONFLICT`); one ended is in the history, which cannot have
 * that key (a partitioned table's keys include the day), so it is looked for there (`NOT EXISTS`, by the
 * event's index) in the days from the batch's oldest event on (`$6`: a delivery is made after its event's
 * transaction began), not in every day. A batch is handed again only when its transaction did not commit,
 * so none of its deliveries can have ended meanwhile; the look in the history holds the promise also when a
 * batch that committed is handed again (a subscriber's position moved back).
 *
 * The same statement drops the changes no batch will need again: a change followed by another of its
 * endpoint numbered before the batch's first event (`$5`) bounds only periods the subscriber has passed.
 * It commits with the batch and its position, so a batch handed again still finds what it needs.
 */
const FAN_OUT = write(
  `WITH batch AS (
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::bigint[]) AS b (event_id, type, sequence)
   ), periods AS (
     SELECT c.webhook_endpoint_id, c.enabled, c.event_types, c.sequence AS from_sequence,
            lead(c.sequence) OVER (PARTITION BY c.webhook_endpoint_id ORDER BY c.sequence) AS to_sequence
       FROM webhook_endpoint_changes c
      WHERE c.sequence < $4
   ), superseded AS (
     DELETE FROM webhook_endpoint_changes c
      USING periods p
      WHERE c.webhook_endpoint_id = p.webhook_endpoint_id AND c.sequence = p.from_sequence
        AND p.to_sequence < $5
   )
   INSERT INTO webhook_delivery_queue (webhook_endpoint_id, event_id, event_type, next_attempt_at)
   SELECT p.webhook_endpoint_id, b.event_id, b.type, now()
     FROM batch b
     JOIN periods p
       ON p.enabled AND b.sequence > p.from_sequence AND (p.to_sequence IS NULL OR b.sequence < p.to_sequence)
      AND (p.event_types IS NULL OR b.type = ANY (p.event_types))
    WHERE NOT EXISTS (SELECT 1 FROM webhook_delivery_history h
                       WHERE h.event_id = b.event_id AND h.webhook_endpoint_id = p.webhook_endpoint_id
                         AND h.created_at >= $6)
   ON CONFLICT (webhook_endpoint_id, event_id) DO NOTHING`,
  'webhooks.fan-out',
);

@Injectable()
export class WebhookFanOutRepository {
  /** Creates the deliveries of `events` (ascending `sequence`) in `tx`; how many it created. */
  async fanOut(tx: Tx, events: readonly StoredEvent[]): Promise<number> {
    return tx.rowCount(FAN_OUT, [
      events.map((e) => e.eventId),
      events.map((e) => e.type),
      events.map((e) => e.sequence),
      events[events.length - 1].sequence,
      events[0].sequence,
      new Date(Math.min(...events.map((e) => e.occurredAt.getTime()))),
    ]);
  }
}
