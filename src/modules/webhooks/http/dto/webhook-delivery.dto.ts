import { OffsetPageQuery } from '../../../../platform/paging/offset-page';
import { OffsetPageResponse } from '../../../../platform/paging/page-response';
import {
  integer,
  oneOf,
  RequestField,
  ResponseField,
  timestamp,
  uuid,
} from '../../../../platform/validation/fields';
import { EVENT_TYPES } from '../../../events/domain/event-types';
import type { DeliveryError } from '../../domain/attempt-outcome';
import {
  DELIVERY_ERRORS,
  WEBHOOK_DELIVERY_STATUSES,
  type WebhookDeliveryStatus,
} from '../../domain/webhook-delivery';

const STATUS = oneOf(WEBHOOK_DELIVERY_STATUSES, 'WebhookDeliveryStatus');

/** Query of `GET /webhook-deliveries`: the page, and filters that combine with AND. */
export class ListWebhookDeliveriesQuery extends OffsetPageQuery {
  @RequestField(uuid(), { presence: 'optional' })
  webhookEndpointId?: string;

  @RequestField(uuid(), { presence: 'optional' })
  eventId?: string;

  @RequestField(STATUS, { presence: 'optional' })
  status?: WebhookDeliveryStatus;
}

/** One event for one endpoint: its attempts so far and how the last one went. */
export class WebhookDeliveryResponse {
  @ResponseField(uuid())
  deliveryId: string;

  @ResponseField(uuid())
  webhookEndpointId: string;

  @ResponseField(uuid(), { description: 'Also the `webhook-id` header of every attempt.' })
  eventId: string;

  @ResponseField(oneOf(EVENT_TYPES, 'EventType'))
  eventType: string;

  @ResponseField(STATUS)
  status: WebhookDeliveryStatus;

  @ResponseField(integer({ min: 0, max: 1_000_000 }))
  attempts: number;

  @ResponseField(timestamp(), { optional: true })
  lastAttemptAt?: Date;

  @ResponseField(timestamp(), { optional: true, description: 'While PENDING: when it is attempted next.' })
  nextAttemptAt?: Date;

  @ResponseField(integer({ min: 100, max: 599 }), {
    optional: true,
    description: 'The status of the last answer, when one came.',
  })
  lastResponseStatus?: number;

  @ResponseField(oneOf(DELIVERY_ERRORS, 'WebhookDeliveryError'), { optional: true })
  lastError?: DeliveryError;

  @ResponseField(timestamp())
  createdAt: Date;

  @ResponseField(timestamp())
  updatedAt: Date;
}

export class WebhookDeliveryPageResponse extends OffsetPageResponse(
  WebhookDeliveryResponse,
  'WebhookDeliveryPageResponse',
) {}
