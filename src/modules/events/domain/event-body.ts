import type { StoredEvent } from './event';

/**
 * An event as it is served, fields in the order of the `Event` schema, before the JSON output rules (absent
 * ones are left out, time stamps formatted). The feed, a single event, the timeline and every webhook
 * delivery's body are this, so a delivery carries the bytes `GET /api/v1/events/{eventId}` serves.
 */
export function eventBody(event: StoredEvent): Record<string, unknown> {
  return {
    eventId: event.eventId,
    type: event.type,
    sequence: event.sequence,
    occurredAt: event.occurredAt,
    orderId: event.orderId,
    taskId: event.taskId,
    customerId: event.customerId,
    actorId: event.actorId,
    data: event.data,
  };
}
