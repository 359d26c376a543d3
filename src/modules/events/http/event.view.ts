import { eventBody } from '../domain/event-body';
import type { StoredEvent } from '../domain/event';

/** An event as it is served (the one rendering: domain/event-body.ts). */
export function toEventResponse(event: StoredEvent): Record<string, unknown> {
  return eventBody(event);
}

/**
 * An event as an order's timeline shows it to `viewer`: whole to an admin; to anyone else without `sequence`
 * (its gaps would tell how much happened in the whole shop) and with `actorId` only when it is the viewer's
 * own id (not, say, the admin who changed the viewer's order).
 */
export function toTimelineEventResponse(
  event: StoredEvent,
  viewer: { userId: string; admin: boolean },
): Record<string, unknown> {
  const body = eventBody(event);
  if (viewer.admin) return body;
  return {
    ...body,
    sequence: undefined,
    actorId: event.actorId === viewer.userId ? event.actorId : undefined,
  };
}
