import { Injectable } from '@nestjs/common';
import type { Tx } from '../../platform/database/transactions';
import { MetricsService } from '../../platform/metrics/metrics.service';
import type { NewTaskEvent, OrderEventOf } from './domain/event';
import type { OrderEventType } from './domain/event-types';
import { EventsRepository, orderEventsSql, orderEventValues } from './persistence/events.repository';

/**
 * What a write of orders must be given to write an order at all: the event it records. The repository's
 * write statements take one and record it themselves, in the statement that writes the change
 * (`sql`/`values`: one more data-modifying CTE over the bodies the statement renders), so no write of an
 * order can leave its event out. Made by `EventRecorder.order`.
 */
export class OrderEvent implements OrderEventOf {
  constructor(
    readonly type: OrderEventType,
    readonly actorId: string,
    private readonly counted: (type: OrderEventType, count: number) => void,
  ) {}

  /** The outbox insert over `source` (rows of an OrderBody), its two parameters from `$firstParam`. */
  static sql(source: string, firstParam: number): string {
    return orderEventsSql(source, firstParam);
  }

  /** The values of the insert's two parameters. */
  values(): [string, string] {
    return orderEventValues(this);
  }

  /** The write's statement returned, having recorded `count` events (metrics). */
  recorded(count: number): void {
    this.counted(this.type, count);
  }
}

/**
 * The one recorder of events (the outbox): every change of an order and every end of a task records its
 * event in the transaction of the change, through here. Orders' writes render the order in SQL and record
 * it in the same statement (`order`); a task's end records the task's body in its transaction (`tasks`).
 */
@Injectable()
export class EventRecorder {
  private readonly listeners: Array<() => void> = [];

  constructor(
    private readonly events: EventsRepository,
    private readonly metrics: MetricsService,
  ) {}

  /** The event a write of orders by `actorId` records, one per order it writes. */
  order(type: OrderEventType, actorId: string): OrderEvent {
    return new OrderEvent(type, actorId, (recorded, count) => {
      this.metrics.countEvents(recorded, count);
      if (count > 0) this.notify();
    });
  }

  /** Records task events in `tx`, the transaction that ends the tasks. */
  async tasks(tx: Tx, events: readonly NewTaskEvent[]): Promise<void> {
    await this.events.insertTaskEvents(tx, events);
    for (const event of events) this.metrics.countEvents(event.type, 1);
    if (events.length > 0) this.notify();
  }

  /**
   * Calls `listener` each time a statement has recorded events (it may not have committed yet: a listener
   * that reads them waits a moment, or looks again later). The webhooks module wakes its deliveries so.
   */
  onRecorded(listener: () => void): void {
    this.listeners.push(listener);
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}
