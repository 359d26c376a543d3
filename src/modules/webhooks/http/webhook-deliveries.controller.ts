import { Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Roles } from '../../../platform/auth/decorators';
import { ApiEndpoint } from '../../../platform/openapi/api-endpoint.decorator';
import { OffsetPage } from '../../../platform/paging/offset-page';
import { UuidParam } from '../../../platform/validation/uuid-param.decorator';
import { VersionedController } from '../../../platform/versioning/api-version';
import { WebhookDeliveriesService } from '../webhook-deliveries.service';
import {
  ListWebhookDeliveriesQuery,
  WebhookDeliveryPageResponse,
  WebhookDeliveryResponse,
} from './dto/webhook-delivery.dto';
import { toDeliveryResponse } from './webhook.view';

/** Webhook deliveries (admin only): one per event and endpoint, its attempts, and the manual retry. */
@ApiTags('WebhookDeliveries')
@Roles('ADMIN')
@VersionedController('webhook-deliveries', 1)
export class WebhookDeliveriesController {
  constructor(private readonly deliveries: WebhookDeliveriesService) {}

  @Get()
  @ApiEndpoint({
    operationId: 'getWebhookDeliveries',
    replicaLag: true,
    summary: 'List webhook deliveries, newest first',
    description: 'Filters combine with AND.',
    type: WebhookDeliveryPageResponse,
  })
  async list(@Query() query: ListWebhookDeliveriesQuery): Promise<OffsetPage<WebhookDeliveryResponse>> {
    const { page, size, ...filters } = query;
    const result = await this.deliveries.list(filters, { page, size });
    return { ...result, content: result.content.map(toDeliveryResponse) };
  }

  @Get(':deliveryId')
  @ApiEndpoint({
    operationId: 'getWebhookDelivery',
    summary: 'Get a webhook delivery',
    errors: ['WEBHOOK_DELIVERY_NOT_FOUND'],
    type: WebhookDeliveryResponse,
  })
  async get(@UuidParam('deliveryId') deliveryId: string): Promise<WebhookDeliveryResponse> {
    return toDeliveryResponse(await this.deliveries.get(deliveryId));
  }

  @Post(':deliveryId/retry')
  @HttpCode(200)
  @ApiEndpoint({
    operationId: 'retryWebhookDelivery',
    summary: 'Attempt an ended webhook delivery once more, now',
    description:
      'For a SUCCEEDED or FAILED delivery of an enabled endpoint: PENDING until that one attempt ends (same ' +
      '`webhook-id`; no new schedule). A PENDING delivery, or a disabled endpoint, is 409.',
    errors: ['WEBHOOK_DELIVERY_NOT_FOUND', 'INVALID_DELIVERY_STATE'],
    type: WebhookDeliveryResponse,
  })
  async retry(@UuidParam('deliveryId') deliveryId: string): Promise<WebhookDeliveryResponse> {
    return toDeliveryResponse(await this.deliveries.retry(deliveryId));
  }
}
