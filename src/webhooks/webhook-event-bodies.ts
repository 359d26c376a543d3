import { Injectable } from '@nestjs/common';

/** An event a delivery sends. */
export interface DeliveredEvent {
  eventId: string;
  eventType: string;
}

/**
 * The body of each delivery: the event's JSON exactly as the feed serves it (`GET /api/v1/events/{eventId}`),
 * the bytes that are signed and sent, the same on every attempt. Resolves with a body for each event still
 * kept (an event past its retention has none).
 */
@Injectable()
export class WebhookEventBodies {
  // Until the event feed is merged the body carries the event's id and type only; the feed's rendering
  // replaces this, so a delivery and the feed never render an event twice.
  async bodiesOf(events: readonly DeliveredEvent[]): Promise<Map<string, Buffer>> {
    return new Map(
      events.map(({ eventId, eventType }) => [
        eventId,
        Buffer.from(JSON.stringify({ eventId, type: eventType }), 'utf8'),
      ]),
    );
  }
}
