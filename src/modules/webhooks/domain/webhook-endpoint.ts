import type { EventType } from '../../events/domain/event-types';

export const WEBHOOK_ENDPOINT_STATUSES = ['ENABLED', 'DISABLED'] as const;
export type WebhookEndpointStatus = (typeof WEBHOOK_ENDPOINT_STATUSES)[number];

/** Why an endpoint is disabled: by an admin, or by the service (docs/events.md "Automatic disabling"). */
export const DISABLED_REASONS = ['MANUAL', 'CONSECUTIVE_FAILURES', 'GONE'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

/** The last this many deliveries of an endpoint to reach a final state all FAILED: the service disables it. */
export const CONSECUTIVE_FAILURES_TO_DISABLE = 10;

/** How long the previous secret still signs after a rotation, by default and at most. */
export const MAX_OLD_SECRET_SECONDS = 86_400;

/** An endpoint as the API shows it (never its secrets). */
export interface WebhookEndpoint {
  webhookEndpointId: string;
  url: string;
  /** Undefined: every type. */
  eventTypes?: EventType[];
  description?: string;
  status: WebhookEndpointStatus;
  disabledReason?: DisabledReason;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** The fields a create sets and a merge patch changes (`null` in a patch removes an optional one). */
export interface WebhookEndpointFields {
  url: string;
  eventTypes?: EventType[] | null;
  description?: string | null;
}

/** The sealed secrets of an endpoint, as stored. */
export interface SealedSecrets {
  current: string;
  previous?: { sealed: string; expiresAt: Date };
}

/** The secrets a delivery is signed with at `now`: the current one, and the previous one until it expires. */
export function secretsInForce<T>(
  current: T,
  previous: { secret: T; expiresAt: Date } | undefined,
  now: Date,
): T[] {
  return previous && previous.expiresAt.getTime() > now.getTime() ? [current, previous.secret] : [current];
}

/** The context a secret of `webhookEndpointId` is sealed for: a sealed value opens for that endpoint only. */
export function secretContext(webhookEndpointId: string): string {
  return `webhook-endpoint:${webhookEndpointId}`;
}
