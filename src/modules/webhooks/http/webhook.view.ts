import type { FastifyReply } from 'fastify';
import { entityTag } from '../../../platform/http/conditional-requests';
import type { WebhookDelivery } from '../domain/webhook-delivery';
import type { WebhookEndpoint } from '../domain/webhook-endpoint';
import type { WebhookDeliveryResponse } from './dto/webhook-delivery.dto';
import type { WebhookEndpointResponse } from './dto/webhook-endpoint.dto';

export function toEndpointResponse(endpoint: WebhookEndpoint): WebhookEndpointResponse {
  return {
    webhookEndpointId: endpoint.webhookEndpointId,
    url: endpoint.url,
    ...(endpoint.eventTypes ? { eventTypes: endpoint.eventTypes } : {}),
    ...(endpoint.description !== undefined ? { description: endpoint.description } : {}),
    status: endpoint.status,
    ...(endpoint.disabledReason ? { disabledReason: endpoint.disabledReason } : {}),
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
  };
}

/** One endpoint as the answer, with the ETag of its version (for `If-Match` on its changes). */
export function sendEndpoint(reply: FastifyReply, endpoint: WebhookEndpoint): WebhookEndpointResponse {
  void reply.header('etag', entityTag(endpoint.webhookEndpointId, endpoint.version));
  return toEndpointResponse(endpoint);
}

export function toDeliveryResponse(delivery: WebhookDelivery): WebhookDeliveryResponse {
  return { ...delivery };
}
