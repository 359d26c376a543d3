import type { Type } from '@nestjs/common';
import { getSchemaPath } from '@nestjs/swagger';
import { declareSchema } from '../../../../platform/openapi/components';
import { DEFAULT_PAGE_SIZE, PAGE_SIZE } from '../../../../platform/paging/offset-page';
import { OffsetPageResponse, pageContent } from '../../../../platform/paging/page-response';
import {
  boolean,
  integer,
  listOf,
  nested,
  oneOf,
  patterned,
  RequestField,
  ResponseField,
  timestamp,
  uuid,
} from '../../../../platform/validation/fields';
import { QueryNumber } from '../../../../platform/validation/query-number.decorator';
import { ToArray } from '../../../../platform/validation/to-array.decorator';
import { OrderResponse } from '../../../orders/http/dto/order-response.dto';
import { TaskResponse } from '../../../tasks/http/dto/task.dto';
import { EVENT_TYPES, type EventType, ORDER_EVENT_TYPES, TASK_EVENT_TYPES } from '../../domain/event-types';

/** Sequences are positive and, as JSON numbers, exact up to 2^53 − 1. */
const SEQUENCE = integer({ min: 1, max: Number.MAX_SAFE_INTEGER });

/** A feed cursor as the service issues it (domain/feed-cursor.ts); any other is INVALID_CURSOR. */
const FEED_CURSOR = patterned({ pattern: /^[A-Za-z0-9_-]+$/, max: 40, format: 'cursor' });
/** The `cursor` parameter: an issued cursor, or empty for the oldest event kept, as the order lists take it. */
const FEED_CURSOR_PARAMETER = patterned({ pattern: /^[A-Za-z0-9_-]*$/, max: 40, format: 'cursor' });

/** Fields every event has, in the order they are served. */
function eventClass(
  name: string,
  types: readonly string[],
  typeEnum: string,
  subject: 'orderId' | 'taskId',
  data: Type<unknown>,
  dataDescription: string,
  /** As an order's timeline shows it: `sequence` and others' `actorId` for admins only. */
  timeline = false,
): Type<unknown> {
  class EventBody {
    @ResponseField(uuid(), { description: 'Also the `webhook-id` of its deliveries.' })
    eventId: string;

    @ResponseField(oneOf(types, typeEnum))
    type: string;
  }
  Object.defineProperty(EventBody, 'name', { value: name });
  ResponseField(SEQUENCE, {
    optional: timeline,
    description: timeline
      ? 'For admins only: its gaps would tell others how much happened in the whole shop.'
      : 'Given at commit: increasing in commit order, with gaps. The feed is ordered by it.',
  })(EventBody.prototype, 'sequence');
  ResponseField(timestamp())(EventBody.prototype, 'occurredAt');
  ResponseField(uuid())(EventBody.prototype, subject);
  ResponseField(uuid(), {
    optional: subject === 'taskId',
    description:
      subject === 'orderId'
        ? "The order's customer."
        : 'The exported customer of a CUSTOMER_EXPORT; absent for a report.',
  })(EventBody.prototype, 'customerId');
  ResponseField(uuid(), {
    optional: true,
    description: timeline
      ? "The user whose request caused it; absent when the service did it, and for a caller who is not an admin unless it is the caller's own id."
      : 'The user whose request caused it; absent when the service did it.',
  })(EventBody.prototype, 'actorId');
  ResponseField(nested(data), { description: dataDescription })(EventBody.prototype, 'data');
  return EventBody;
}

export const OrderEventResponse = eventClass(
  'OrderEvent',
  ORDER_EVENT_TYPES,
  'OrderEventType',
  'orderId',
  OrderResponse,
  'The order as GET /api/v1/orders/{orderId} returned it right after the change (for ORDER_DELETED, as it was).',
);

/** An event of an order's timeline (`GET /api/v1/orders/{orderId}/events`). */
export const OrderTimelineEventResponse = eventClass(
  'OrderTimelineEvent',
  ORDER_EVENT_TYPES,
  'OrderEventType',
  'orderId',
  OrderResponse,
  'The order as GET /api/v1/orders/{orderId} returned it right after the change (for ORDER_DELETED, as it was).',
  true,
);

export const TaskEventResponse = eventClass(
  'TaskEvent',
  TASK_EVENT_TYPES,
  'TaskEventType',
  'taskId',
  TaskResponse,
  'The task as GET /api/v1/tasks/{taskId} returns it (a failure text in the default language).',
);

const typeMapping = (types: readonly string[], target: Type<unknown>) =>
  Object.fromEntries(types.map((type) => [type, getSchemaPath(target)]));

/** `Event`: an order event or a task event, told apart by `type`. */
export const EVENT_SCHEMA = declareSchema('Event', {
  oneOf: [{ $ref: getSchemaPath(OrderEventResponse) }, { $ref: getSchemaPath(TaskEventResponse) }],
  discriminator: {
    propertyName: 'type',
    mapping: {
      ...typeMapping(ORDER_EVENT_TYPES, OrderEventResponse),
      ...typeMapping(TASK_EVENT_TYPES, TaskEventResponse),
    },
  },
});

/** A page of the change feed: always a `nextCursor` to resume from; never a previous page. */
export class EventFeedPageResponse {
  @ResponseField(pageContent(EVENT_SCHEMA))
  content: unknown[];

  @ResponseField(PAGE_SIZE)
  size: number;

  @ResponseField(FEED_CURSOR, {
    description: 'Where to resume: on every page, also an empty or the last one for now.',
  })
  nextCursor: string;

  @ResponseField(boolean(), { description: 'Whether events the feed can serve now follow this page.' })
  hasNext: boolean;

  @ResponseField(boolean(), { description: 'Always false: the feed is read forwards.' })
  hasPrev: boolean;
}

/** An offset page of an order's events. */
export class EventPageResponse extends OffsetPageResponse(OrderTimelineEventResponse, 'EventPageResponse') {}

/** Query of `GET /api/v1/events`. */
export class EventFeedQuery {
  @RequestField(FEED_CURSOR_PARAMETER, {
    presence: 'optional',
    description: "The previous page's `nextCursor`; absent or empty to start at the oldest event kept.",
  })
  cursor?: string;

  @RequestField(PAGE_SIZE, { presence: 'optional', default: DEFAULT_PAGE_SIZE })
  @QueryNumber()
  size: number = DEFAULT_PAGE_SIZE;

  @RequestField(listOf(oneOf(EVENT_TYPES, 'EventType'), { max: EVENT_TYPES.length }), {
    presence: 'optional',
    description: 'Repeat for several types (?type=A&type=B).',
  })
  @ToArray()
  type?: EventType[];

  @RequestField(uuid(), { presence: 'optional' })
  orderId?: string;

  @RequestField(uuid(), { presence: 'optional' })
  customerId?: string;
}
