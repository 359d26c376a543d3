import { Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { type Caller, isAdmin } from '../../../platform/auth/caller';
import { CurrentCaller } from '../../../platform/auth/decorators';
import { EventFeedService } from '../../events/event-feed.service';
import { EventPageResponse } from '../../events/http/dto/event.dto';
import { toTimelineEventResponse } from '../../events/http/event.view';
import { ApiEndpoint } from '../../../platform/openapi/api-endpoint.decorator';
import { OffsetPageQuery } from '../../../platform/paging/offset-page';
import { UuidParam } from '../../../platform/validation/uuid-param.decorator';
import { VersionedController } from '../../../platform/versioning/api-version';
import { OrderReadsService } from '../order-reads.service';
import { ORDER_ERRORS } from './order-errors';

/** An order's timeline: `/orders/{orderId}/events`, with the order's access rules. */
@ApiTags('Orders')
@VersionedController('orders', 1)
export class OrderEventsController {
  constructor(
    private readonly reads: OrderReadsService,
    private readonly events: EventFeedService,
  ) {}

  @Get(':orderId/events')
  @ApiEndpoint({
    operationId: 'getOrderEvents',
    summary: 'List the events of an order',
    description:
      "The order's events, oldest first, for its owner and admins (as reading the order). For a caller who " +
      "is not an admin an event carries no `sequence`, and an `actorId` only when it is the caller's own.",
    errors: [...ORDER_ERRORS],
    type: EventPageResponse,
  })
  async list(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @Query() query: OffsetPageQuery,
  ): Promise<unknown> {
    await this.reads.assertVisible(caller, orderId);
    const page = await this.events.orderTimeline(orderId.toLowerCase(), query);
    const viewer = { userId: caller.userId, admin: isAdmin(caller) };
    return { ...page, content: page.content.map((event) => toTimelineEventResponse(event, viewer)) };
  }
}
