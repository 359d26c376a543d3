import { eventBody } from '../domain/event-body';
import type { StoredEvent } from '../domain/event';

/** An event as it is served (the one rendering: domain/event-body.ts). */
export function toEventResponse(event: StoredEvent): Record<string, unknown> {
  return eventBody(event);
}
