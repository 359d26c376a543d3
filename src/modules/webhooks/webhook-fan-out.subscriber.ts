import { Injectable } from '@nestjs/common';
import { Transactions, type Tx } from '../../platform/database/transactions';
import type { StoredEvent } from '../events/domain/event';
import { type EventSubscriber, EventSubscription } from '../events/event-subscriber';
import { WebhookFanOutRepository } from './persistence/webhook-fan-out.repository';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor';

/**
 * Webhook fan-out, an event subscriber (docs/decisions/0150-event-subscribers-and-a-kept-horizon.md): each
 * event becomes one delivery per endpoint that was enabled and subscribed to its type at the event's
 * `sequence`, out of the writer's transaction; the deliveries commit with the subscriber's position. Once
 * they have, the delivery processor is woken.
 */
@EventSubscription({ name: 'webhook-fan-out' })
@Injectable()
export class WebhookFanOut implements EventSubscriber {
  constructor(
    private readonly fanOut: WebhookFanOutRepository,
    private readonly processor: WebhookDeliveryProcessor,
    private readonly transactions: Transactions,
  ) {}

  async handle(events: readonly StoredEvent[], tx: Tx): Promise<void> {
    const created = await this.fanOut.fanOut(tx, events);
    if (created > 0) await this.transactions.afterCommit(() => this.processor.deliveriesDue());
  }
}
