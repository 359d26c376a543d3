import { Module } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { DestinationPolicy } from './domain/destination-policy';
import { WebhookDeliveriesController } from './http/webhook-deliveries.controller';
import { WebhookEndpointsController } from './http/webhook-endpoints.controller';
import { WebhookDeliveriesRepository } from './persistence/webhook-deliveries.repository';
import { WebhookEndpointsRepository } from './persistence/webhook-endpoints.repository';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor';
import { systemHostResolver } from './webhook-destinations';
import { WEBHOOK_HOST_RESOLVER, WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookEventBodies } from './webhook-event-bodies';
import { WebhookFanOut } from './webhook-fan-out.service';

/**
 * Webhooks: endpoints (HTTP, secrets sealed at rest), the fan-out of each event to the endpoints subscribed
 * to it (in the event's transaction), and the delivery processor that sends them at least once, signed by
 * the Standard Webhooks rules, only to destinations the policy allows (docs/events.md). Other modules record
 * deliveries through the exported WebhookFanOut.
 */
@Module({
  controllers: [WebhookEndpointsController, WebhookDeliveriesController],
  providers: [
    {
      provide: DestinationPolicy,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        new DestinationPolicy({
          allowPrivateUrls: config.webhooks.allowPrivateUrls,
          allowedNetworks: config.webhooks.allowedNetworks,
        }),
    },
    { provide: WEBHOOK_HOST_RESOLVER, useValue: systemHostResolver },
    WebhookEndpointsRepository,
    WebhookDeliveriesRepository,
    WebhookEndpointsService,
    WebhookDeliveriesService,
    WebhookEventBodies,
    WebhookDeliveryProcessor,
    WebhookFanOut,
  ],
  exports: [WebhookFanOut],
})
export class WebhooksModule {}
