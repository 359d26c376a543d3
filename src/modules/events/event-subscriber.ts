import { SetMetadata } from '@nestjs/common';
import type { Tx } from '../../platform/database/transactions';
import type { StoredEvent } from './domain/event';

/**
 * Code that follows events as a named consumer (docs/events.md "Subscribers"): a provider of its module,
 * marked with `@EventSubscription`. The runner (`EventSubscribers`) calls `handle` with the next events after
 * the consumer's position, in `sequence` order, in a transaction that also moves the position past them:
 * what the handler writes with `tx` commits with the new position or not at all. A batch is handed again
 * when it failed (the handler threw, the process died, the commit failed), so a handler is idempotent
 * (e.g. `INSERT … ON CONFLICT DO NOTHING`); work outside PostgreSQL goes in `Transactions.afterCommit`.
 */
export interface EventSubscriber {
  handle(events: readonly StoredEvent[], tx: Tx): Promise<void>;
}

export interface EventSubscriptionOptions {
  /** The consumer's name: its position's key in `event_subscribers`. Never renamed (that starts afresh). */
  name: string;
  /** Events per call at most. */
  batchSize?: number;
}

export const EVENT_SUBSCRIPTION = Symbol('EVENT_SUBSCRIPTION');

/** Marks a provider as an event subscriber (it implements `EventSubscriber`). */
export const EventSubscription = (options: EventSubscriptionOptions): ClassDecorator =>
  SetMetadata(EVENT_SUBSCRIPTION, options);
