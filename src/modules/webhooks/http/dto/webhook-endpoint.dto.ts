import { ApiPropertyOptional } from '@nestjs/swagger';
import { EVENT_TYPES, type EventType } from '../../../events/domain/event-types';
import { OffsetPageResponse } from '../../../../platform/paging/page-response';
import {
  integer,
  listOf,
  oneOf,
  RequestField,
  ResponseField,
  text,
  timestamp,
  uuid,
} from '../../../../platform/validation/fields';
import { ReadOnly } from '../../../../platform/validation/read-only.decorator';
import { MAX_WEBHOOK_URL_LENGTH } from '../../domain/destination-policy';
import {
  DISABLED_REASONS,
  type DisabledReason,
  MAX_OLD_SECRET_SECONDS,
  WEBHOOK_ENDPOINT_STATUSES,
  type WebhookEndpointStatus,
} from '../../domain/webhook-endpoint';

const URL_FIELD = text({ min: 1, max: MAX_WEBHOOK_URL_LENGTH, example: 'https://hooks.example.com/orders' });
const URL_TEXT =
  'Absolute https URL without user info whose host has only globally reachable addresses (docs/events.md).';
const EVENT_TYPE_LIST = listOf(oneOf(EVENT_TYPES, 'EventType'), { min: 1, max: EVENT_TYPES.length });
const EVENT_TYPES_TEXT = 'The event types sent to the endpoint; absent: every type.';
const DESCRIPTION = text({ min: 1, max: 500, multiline: true, example: 'Warehouse system' });
const READ_ONLY = 'Read-only; sending it is a validation error.';

/** Fields a response has and a request may not set (`status` in a patch is a 400 naming it). */
class EndpointReadOnlyFields {
  @ApiPropertyOptional({ readOnly: true, description: READ_ONLY })
  @ReadOnly()
  webhookEndpointId?: unknown;

  @ApiPropertyOptional({ readOnly: true, description: `${READ_ONLY} Use the disable and enable actions.` })
  @ReadOnly()
  status?: unknown;

  @ApiPropertyOptional({ readOnly: true, description: READ_ONLY })
  @ReadOnly()
  disabledReason?: unknown;

  @ApiPropertyOptional({ readOnly: true, description: `${READ_ONLY} Use the rotate-secret action.` })
  @ReadOnly()
  secret?: unknown;

  @ApiPropertyOptional({ readOnly: true, description: READ_ONLY })
  @ReadOnly()
  createdAt?: unknown;

  @ApiPropertyOptional({ readOnly: true, description: READ_ONLY })
  @ReadOnly()
  updatedAt?: unknown;
}

/** Body of `POST /webhook-endpoints`. */
export class CreateWebhookEndpointRequest extends EndpointReadOnlyFields {
  @RequestField(URL_FIELD, { description: URL_TEXT })
  url: string;

  @RequestField(EVENT_TYPE_LIST, { presence: 'optional', description: EVENT_TYPES_TEXT })
  eventTypes?: EventType[];

  @RequestField(DESCRIPTION, { presence: 'optional' })
  description?: string;
}

/** Merge patch of an endpoint (RFC 7396): `null` removes `eventTypes` (every type) or `description`. */
export class PatchWebhookEndpointRequest extends EndpointReadOnlyFields {
  @RequestField(URL_FIELD, { presence: 'patch', description: URL_TEXT })
  url?: string;

  @RequestField(EVENT_TYPE_LIST, {
    presence: 'nullable',
    description: `${EVENT_TYPES_TEXT} null: every type.`,
  })
  eventTypes?: EventType[] | null;

  @RequestField(DESCRIPTION, { presence: 'nullable' })
  description?: string | null;
}

/** Body of `POST /webhook-endpoints/{webhookEndpointId}/rotate-secret` (optional). */
export class RotateWebhookSecretRequest {
  @RequestField(integer({ min: 0, max: MAX_OLD_SECRET_SECONDS, example: 3600 }), {
    presence: 'optional',
    default: MAX_OLD_SECRET_SECONDS,
    description: 'How long the previous secret still signs deliveries (a second signature), in seconds.',
  })
  oldSecretExpiresInSeconds?: number;
}

/** A webhook endpoint; its secret is never shown again after create and rotate-secret. */
export class WebhookEndpointResponse {
  @ResponseField(uuid())
  webhookEndpointId: string;

  @ResponseField(URL_FIELD)
  url: string;

  @ResponseField(EVENT_TYPE_LIST, { optional: true, description: EVENT_TYPES_TEXT })
  eventTypes?: EventType[];

  @ResponseField(DESCRIPTION, { optional: true })
  description?: string;

  @ResponseField(oneOf(WEBHOOK_ENDPOINT_STATUSES, 'WebhookEndpointStatus'), {
    description: 'A DISABLED endpoint gets no deliveries; events still are recorded (the feed has them).',
  })
  status: WebhookEndpointStatus;

  @ResponseField(oneOf(DISABLED_REASONS, 'WebhookDisabledReason'), {
    optional: true,
    description:
      'While DISABLED: MANUAL (the disable action), CONSECUTIVE_FAILURES (the last 10 deliveries to end all ' +
      'FAILED), GONE (the receiver answered 410).',
  })
  disabledReason?: DisabledReason;

  @ResponseField(timestamp())
  createdAt: Date;

  @ResponseField(timestamp())
  updatedAt: Date;
}

/** The answer of create and rotate-secret: the endpoint and its new signing secret, shown this once. */
export class WebhookEndpointWithSecretResponse extends WebhookEndpointResponse {
  @ResponseField(text({ min: 1, max: 100, example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }), {
    description: 'The signing secret (`whsec_` and the base64 of 32 bytes): shown in this answer only.',
  })
  secret: string;
}

export class WebhookEndpointPageResponse extends OffsetPageResponse(
  WebhookEndpointResponse,
  'WebhookEndpointPageResponse',
) {}
