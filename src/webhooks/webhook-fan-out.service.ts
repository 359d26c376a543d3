import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource, EntityManager, EntitySubscriberInterface } from 'typeorm';
import { WebhookDeliveriesRepository } from './persistence/webhook-deliveries.repository';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor';

/** Marks a transaction (its query runner's data) that created deliveries: the workers are woken after it commits. */
const CREATED_DELIVERIES = 'webhooks:createdDeliveries';

/**
 * Creates the deliveries of an event, in the event's own transaction: one per ENABLED endpoint subscribed to
 * its type at that moment (an endpoint created or enabled later never gets it; the feed is there to catch up).
 * A rolled-back event has no deliveries; a committed one has them all, whatever happens to the process next.
 * Once that transaction commits, the delivery workers are woken, so a delivery does not wait for the sweep.
 */
@Injectable()
export class WebhookFanOut implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly processor: WebhookDeliveryProcessor,
  ) {}

  onModuleInit(): void {
    const subscriber: EntitySubscriberInterface = {
      afterTransactionCommit: ({ queryRunner }) => {
        if (queryRunner.data?.[CREATED_DELIVERIES] !== true) return;
        delete queryRunner.data[CREATED_DELIVERIES];
        this.processor.wake();
      },
      afterTransactionRollback: ({ queryRunner }) => {
        if (queryRunner.data) delete queryRunner.data[CREATED_DELIVERIES];
      },
    };
    this.dataSource.subscribers.push(subscriber);
  }

  /** The deliveries of the event, in `db`'s transaction; resolves with how many were created. */
  async forEvent(db: EntityManager, event: { eventId: string; type: string }): Promise<number> {
    const created = await this.deliveries.fanOut(db, event);
    if (created > 0 && db.queryRunner) {
      db.queryRunner.data = { ...db.queryRunner.data, [CREATED_DELIVERIES]: true };
    }
    return created;
  }
}
