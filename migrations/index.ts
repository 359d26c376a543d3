import { MigrationInterface } from 'typeorm';
import { Init1763800000000 } from './1763800000000-init';
import { IdempotencyKeys1763800001000 } from './1763800001000-idempotency-keys';
import { OrdersCore1763800002000 } from './1763800002000-orders-core';
import { OrderSearch1763800003000 } from './1763800003000-order-search';
import { CustomerCoveringIndex1763800004000 } from './1763800004000-customer-covering-index';
import { BlobStorage1763800010000 } from './1763800010000-blob-storage';
import { Tasks1763800011000 } from './1763800011000-tasks';
import { Attachments1763800012000 } from './1763800012000-attachments';
import { UserSettings1763800013000 } from './1763800013000-user-settings';
import { DeliveryAddresses1763800013100 } from './1763800013100-delivery-addresses';
import { OrderCreationReference1763800014000 } from './1763800014000-order-creation-reference';
import { OrderValuesInRange1763800015000 } from './1763800015000-order-values-in-range';
import { Events1763800016000 } from './1763800016000-events';
import { EventsNumberedInSharedMode1763800016100 } from './1763800016100-events-numbered-in-shared-mode';
import { Webhooks1763800017000 } from './1763800017000-webhooks';
import { WebhookFanOut1763800017100 } from './1763800017100-webhook-fan-out';
import { WebhookDeliveryFairness1763800017200 } from './1763800017200-webhook-delivery-fairness';
import { EventHorizonAndSubscribers1763800018000 } from './1763800018000-event-horizon-and-subscribers';
import { WebhookFanOutBySubscriber1763800018100 } from './1763800018100-webhook-fan-out-by-subscriber';
import { EventHorizonByObservation1763800019000 } from './1763800019000-event-horizon-by-observation';
import { EventsPartitionedByDay1763800020000 } from './1763800020000-events-partitioned-by-day';
import { WebhookDeliveryQueue1763800021000 } from './1763800021000-webhook-delivery-queue';
import { WebhookDeliveryIdsByTime1763800021100 } from './1763800021100-webhook-delivery-ids-by-time';
import { WebhookDeliveryHistoryByDay1763800021200 } from './1763800021200-webhook-delivery-history-by-day';

/** Every migration, in order. Listed explicitly so the same list works from src (ts-jest) and dist. */
export const migrations: Array<new () => MigrationInterface> = [
  Init1763800000000,
  IdempotencyKeys1763800001000,
  OrdersCore1763800002000,
  OrderSearch1763800003000,
  CustomerCoveringIndex1763800004000,
  BlobStorage1763800010000,
  Tasks1763800011000,
  Attachments1763800012000,
  UserSettings1763800013000,
  DeliveryAddresses1763800013100,
  OrderCreationReference1763800014000,
  OrderValuesInRange1763800015000,
  Events1763800016000,
  EventsNumberedInSharedMode1763800016100,
  Webhooks1763800017000,
  WebhookFanOut1763800017100,
  WebhookDeliveryFairness1763800017200,
  EventHorizonAndSubscribers1763800018000,
  WebhookFanOutBySubscriber1763800018100,
  EventHorizonByObservation1763800019000,
  EventsPartitionedByDay1763800020000,
  WebhookDeliveryQueue1763800021000,
  WebhookDeliveryIdsByTime1763800021100,
  WebhookDeliveryHistoryByDay1763800021200,
];
