import { Get, Query } from '@nestjs/common';
import { ApiExtraModels, ApiTags } from '@nestjs/swagger';
import { Roles } from '../../../platform/auth/decorators';
import { ApiEndpoint } from '../../../platform/openapi/api-endpoint.decorator';
import { UuidParam } from '../../../platform/validation/uuid-param.decorator';
import { VersionedController } from '../../../platform/versioning/api-version';
import { EventFeedService } from '../event-feed.service';
import {
  EVENT_SCHEMA,
  EventFeedPageResponse,
  EventFeedQuery,
  OrderEventResponse,
  TaskEventResponse,
} from './dto/event.dto';
import { toEventResponse } from './event.view';

/** The change feed and single events (admin). */
@ApiTags('Events')
@ApiExtraModels(OrderEventResponse, TaskEventResponse)
@VersionedController('events', 1)
export class EventsController {
  constructor(private readonly feed: EventFeedService) {}

  @Get()
  @Roles('ADMIN')
  @ApiEndpoint({
    operationId: 'getEvents',
    summary: 'Follow the change feed of orders and tasks (admin)',
    description:
      'Events oldest first by `sequence`. Follow `nextCursor` (present on every page, also an empty one) to ' +
      'see every event exactly once and in `sequence` order, even while transactions commit out of order: ' +
      'an event is served from its commit on. `hasNext` says whether more can be served now. A cursor ' +
      'pointing before events retention has deleted is 400 VALIDATION_ERROR (violation CURSOR_EXPIRED).',
    type: EventFeedPageResponse,
  })
  async list(@Query() query: EventFeedQuery): Promise<unknown> {
    const page = await this.feed.feed(
      // An empty cursor starts at the oldest event kept, as no cursor does.
      query.cursor || undefined,
      {
        types: query.type,
        orderId: query.orderId?.toLowerCase(),
        customerId: query.customerId?.toLowerCase(),
      },
      query.size,
    );
    return { ...page, content: page.content.map(toEventResponse) };
  }

  @Get(':eventId')
  @Roles('ADMIN')
  @ApiEndpoint({
    operationId: 'getEvent',
    summary: 'Get one event (admin)',
    description: 'The event exactly as the feed and its webhook deliveries carry it.',
    errors: ['EVENT_NOT_FOUND'],
    schema: EVENT_SCHEMA,
  })
  async get(@UuidParam('eventId') eventId: string): Promise<unknown> {
    return toEventResponse(await this.feed.get(eventId));
  }
}
