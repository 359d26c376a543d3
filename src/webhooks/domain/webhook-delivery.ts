import type { DeliveryError } from './attempt-outcome';

export const WEBHOOK_DELIVERY_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

export const DELIVERY_ERRORS = [
  'TIMEOUT',
  'CONNECTION_FAILED',
  'HTTP_STATUS',
  'URL_NOT_ALLOWED',
] as const satisfies readonly DeliveryError[];

/** At most this many deliveries to one endpoint are in flight at once, across every worker. */
export const MAX_IN_FLIGHT_PER_ENDPOINT = 10;

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
