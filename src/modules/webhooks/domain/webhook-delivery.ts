import type { DeliveryError } from './attempt-outcome';

export const WEBHOOK_DELIVERY_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

export const DELIVERY_ERRORS = [
  'TIMEOUT',
  'CONNECTION_FAILED',
  'HTTP_STATUS',
  'URL_NOT_ALLOWED',
] as const satisfies readonly DeliveryError[];

/**
 * How many deliveries to one endpoint may be in flight at once, across every worker: a few while its last
 * attempt succeeded; one (a probe) while it is unproven (no attempt yet) or failing, so a silent receiver
 * holds one connection while its other deliveries wait in PostgreSQL.
 */
export const IN_FLIGHT_PER_HEALTHY_ENDPOINT = 10;
export const IN_FLIGHT_PER_OTHER_ENDPOINT = 1;

/** A delivery as the API shows it. */
export interface WebhookDelivery {
  deliveryId: string;
  webhookEndpointId: string;
  eventId: string;
  eventType: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  lastAttemptAt?: Date;
  nextAttemptAt?: Date;
  lastResponseStatus?: number;
  lastError?: DeliveryError;
  createdAt: Date;
  updatedAt: Date;
}

/** A manual retry is allowed for an ended delivery of an enabled endpoint. */
export function canRetryManually(status: WebhookDeliveryStatus, endpointEnabled: boolean): boolean {
  return status !== 'PENDING' && endpointEnabled;
}
