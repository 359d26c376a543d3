import type { EventType, OrderEventType, TaskEventType } from './event-types';

/**
 * An event as the feed, the order's timeline and a webhook delivery serve it (docs/events.md). `data` is
 * the order as `GET /api/v1/orders/{orderId}` served it right after the change (as it was, for
 * ORDER_DELETED), or the task as `GET /api/v1/tasks/{taskId}` serves it.
 */
export interface StoredEvent {
  eventId: string;
  type: EventType;
  /** Given at commit: increasing in commit order, with gaps. */
  sequence: number;
  occurredAt: Date;
  orderId?: string;
  taskId?: string;
  customerId?: string;
  actorId?: string;
  data: Record<string, unknown>;
}

/** A task event as its writer records it: the task's body as GET /tasks/{taskId} serves it. */
export interface NewTaskEvent {
  type: TaskEventType;
  taskId: string;
  /** The exported customer of a CUSTOMER_EXPORT; none for a report. */
  customerId?: string;
  /** Who caused it; none when the service did (completion, failure). */
  actorId?: string;
  data: Record<string, unknown>;
}

/** Who and what an order write records: the statement that writes the change records its event. */
export interface OrderEventOf {
  type: OrderEventType;
  /** The caller whose request made the change (for a batch, for each of its orders). */
  actorId: string;
}

/** The feed's filters, all optional, combined with AND. */
export interface FeedFilter {
  types?: readonly EventType[];
  orderId?: string;
  customerId?: string;
}
