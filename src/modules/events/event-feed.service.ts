import { Injectable } from '@nestjs/common';
import { Transactions } from '../../platform/database/transactions';
import { offsetOf, offsetPage, type OffsetPage } from '../../platform/paging/offset-page';
import { toJsonOutput } from '../../platform/http/json-output';
import { AppException } from '../../platform/problem/app-exception';
import { eventBody } from './domain/event-body';
import type { FeedFilter, StoredEvent } from './domain/event';
import { decodeFeedCursor, encodeFeedCursor } from './domain/feed-cursor';
import { EventsRepository } from './persistence/events.repository';

/** A page of the feed: always with the cursor to resume from, never a way back. */
export interface FeedPage {
  content: StoredEvent[];
  size: number;
  nextCursor: string;
  hasNext: boolean;
  hasPrev: false;
}

/**
 * Reading events: the change feed, one event, an order's timeline. Only numbered events are served. Events
 * are numbered at commit under a lock (shared among writers) held until the commit is visible, and a feed
 * page serves events up to its horizon only, the highest number given once every transaction that had
 * numbered its events has ended (EventsRepository.feedPage): every event up to it is visible, so a reader
 * that resumes after the last sequence it saw never skips one committed later
 * (docs/decisions/0110-events-numbered-at-commit.md).
 */
@Injectable()
export class EventFeedService {
  constructor(
    private readonly events: EventsRepository,
    private readonly transactions: Transactions,
  ) {}

  /**
   * Up to `size` events after `cursor` (from the oldest retained without one), oldest first. When the page
   * is the last one for now, the next cursor points at the horizon, past every event servable now (whatever
   * the filters), so a filtered follower does not scan the same events again. A cursor before what
   * retention has deleted is refused with CURSOR_EXPIRED.
   */
  async feed(cursor: string | undefined, filter: FeedFilter, size: number): Promise<FeedPage> {
    const after = cursor === undefined ? 0 : decodeFeedCursor(cursor);
    if (after === undefined) throw AppException.validation([{ field: 'cursor', code: 'INVALID_CURSOR' }]);
    // Its own transaction, ended at once, even inside a request's: the kept horizon's row lock lasts as long.
    const horizon = await this.transactions.runAlone((tx) => this.events.feedHorizon(tx));
    const page = await this.events.feedPage(after, filter, size + 1, horizon);
    if (cursor !== undefined && after < page.purgedThrough) {
      throw AppException.validation([{ field: 'cursor', code: 'CURSOR_EXPIRED' }]);
    }
    const hasNext = page.events.length > size;
    const content = page.events.slice(0, size);
    const last = hasNext
      ? content[content.length - 1].sequence
      : Math.max(after, page.purgedThrough, horizon.horizon);
    return { content, size, nextCursor: encodeFeedCursor(last), hasNext, hasPrev: false };
  }

  /**
   * The bytes `GET /api/v1/events/{eventId}` serves, for each of `eventIds` the feed can serve (a webhook
   * delivery's body): the one rendering of an event and the JSON output rules, as the answer goes out.
   */
  async servedBodies(eventIds: readonly string[]): Promise<Map<string, Buffer>> {
    const events = await this.events.readMany(eventIds);
    return new Map(
      events.map((event) => [
        event.eventId,
        Buffer.from(JSON.stringify(toJsonOutput(eventBody(event))), 'utf8'),
      ]),
    );
  }

  async get(eventId: string): Promise<StoredEvent> {
    const event = await this.events.read(eventId);
    if (!event) throw new AppException('EVENT_NOT_FOUND', { args: { eventId } });
    return event;
  }

  /** An order's events, oldest first (the caller has checked that its caller may read the order). */
  async orderTimeline(
    orderId: string,
    query: { page: number; size: number },
  ): Promise<OffsetPage<StoredEvent>> {
    const { events, total } = await this.events.orderPage(orderId, {
      limit: query.size,
      offset: offsetOf(query),
    });
    return offsetPage(events, total, query);
  }
}
