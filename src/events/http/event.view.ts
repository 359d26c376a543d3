import type { StoredEvent } from '../domain/event';

/**
 * An event as it is served, fields in the order of the `Event` schema; absent ones are left out by the JSON
 * output rules. `data` is the order or task body as it was recorded.
 */
export function toEventResponse(event: StoredEvent): Record<string, unknown> {
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
