import { Injectable } from '@nestjs/common';
import { Transactions } from '../../platform/database/transactions';
import { OffsetPage, offsetOf, offsetPage } from '../../platform/paging/offset-page';
import { AppException } from '../../platform/problem/app-exception';
import {
  canRetryManually,
  type WebhookDelivery,
  type WebhookDeliveryStatus,
} from './domain/webhook-delivery';
import { WebhookDeliveriesRepository } from './persistence/webhook-deliveries.repository';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor';

export interface DeliveryFilters {
  webhookEndpointId?: string;
  eventId?: string;
  status?: WebhookDeliveryStatus;
}

/** The deliveries of webhooks (admin only): what was sent where and how it went, and the manual retry. */
@Injectable()
export class WebhookDeliveriesService {
  constructor(
    private readonly transactions: Transactions,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly processor: WebhookDeliveryProcessor,
  ) {}

  async list(
    filters: DeliveryFilters,
    paging: { page: number; size: number },
  ): Promise<OffsetPage<WebhookDelivery>> {
    const { deliveries, total } = await this.deliveries.page(filters, {
      limit: paging.size,
      offset: offsetOf(paging),
    });
    return offsetPage(deliveries, total, paging);
  }

  async get(deliveryId: string): Promise<WebhookDelivery> {
    const delivery = await this.deliveries.read(deliveryId);
    if (!delivery) throw notFound(deliveryId);
    return delivery;
  }

  /**
   * One more attempt now for an ended delivery (same `webhook-id`), outside the retry schedule: it is PENDING
   * until that attempt ends. A PENDING delivery, or one whose endpoint is disabled, is 409.
   */
  async retry(deliveryId: string): Promise<WebhookDelivery> {
    const delivery = await this.transactions.run(async (tx) => {
      const found = await this.deliveries.lockWithEndpoint(tx, deliveryId);
      if (!found) throw notFound(deliveryId);
      if (!canRetryManually(found.delivery.status, found.endpointEnabled)) {
        throw new AppException('INVALID_DELIVERY_STATE', {
          detailKey: found.endpointEnabled
            ? 'errors.INVALID_DELIVERY_STATE'
            : 'errors.INVALID_DELIVERY_STATE_ENDPOINT_DISABLED',
          args: { deliveryId, status: found.delivery.status },
        });
      }
      return this.deliveries.retryNow(tx, found.delivery);
    });
    await this.processor.deliveriesDue();
    return delivery;
  }
}

function notFound(deliveryId: string): AppException {
  return new AppException('WEBHOOK_DELIVERY_NOT_FOUND', { args: { deliveryId } });
}
