import { Module } from '@nestjs/common';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.module';
import { EventsModule } from '../events/events.module';
import { DestinationPolicy } from './domain/destination-policy';
import { WebhookDeliveriesController } from './http/webhook-deliveries.controller';
import { WebhookEndpointsController } from './http/webhook-endpoints.controller';
import { WebhookDeliveriesRepository } from './persistence/webhook-deliveries.repository';
import { WebhookEndpointsRepository } from './persistence/webhook-endpoints.repository';
import { WebhookFanOutRepository } from './persistence/webhook-fan-out.repository';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor';
import { systemHostResolver, WEBHOOK_HOST_RESOLVER } from './webhook-destinations';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookFanOut } from './webhook-fan-out.subscriber';

/**
 * Webhooks: endpoints (HTTP, secrets sealed at rest) and the delivery processor that sends each event to the
 * endpoints subscribed to it, at least once, signed by the Standard Webhooks rules, only to destinations the
 * policy allows (docs/events.md). The deliveries of an event are created by an event subscriber
 * (`WebhookFanOut`), after its commit, for the endpoints subscribed at its `sequence`; their bodies are the
 * feed's rendering.
 */
@Module({
  imports: [EventsModule],
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
    WebhookDeliveryProcessor,
    WebhookFanOutRepository,
    WebhookFanOut,
  ],
})
export class WebhooksModule {}
