import { Module } from '@nestjs/common';
import { EventFeedService } from './event-feed.service';
import { EventMaintenance } from './event-maintenance.service';
import { EventRecorder } from './event-recorder.service';
import { EventsController } from './http/events.controller';
import { EventsRepository } from './persistence/events.repository';

/**
 * Events (docs/events.md): the outbox every change of an order and every end of a task writes through
 * (`EventRecorder`, exported), the change feed and single events (admin), an order's timeline
 * (`EventFeedService`, exported: the orders module serves it under the order's access rules), retention.
 */
@Module({
  controllers: [EventsController],
  providers: [EventsRepository, EventRecorder, EventFeedService, EventMaintenance],
  exports: [EventRecorder, EventFeedService],
})
export class EventsModule {}
