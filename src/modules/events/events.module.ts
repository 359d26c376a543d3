import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { EventFeedService } from './event-feed.service';
import { EventMaintenance } from './event-maintenance.service';
import { EventRecorder } from './event-recorder.service';
import { EventSubscribers } from './event-subscribers.service';
import { EventsController } from './http/events.controller';
import { EventSubscribersRepository } from './persistence/event-subscribers.repository';
import { EventsRepository } from './persistence/events.repository';

/**
 * Events (docs/events.md): the outbox every change of an order and every end of a task writes through
 * (`EventRecorder`, exported), the change feed and single events (admin), an order's timeline
 * (`EventFeedService`, exported: the orders module serves it under the order's access rules), retention,
 * and the runner of the event subscribers (`EventSubscribers`: every `@EventSubscription` provider of any
 * module, docs/events.md "Subscribers").
 */
@Module({
  imports: [DiscoveryModule],
  controllers: [EventsController],
  providers: [
    EventsRepository,
    EventSubscribersRepository,
    EventRecorder,
    EventFeedService,
    EventMaintenance,
    EventSubscribers,
  ],
  exports: [EventRecorder, EventFeedService, EventSubscribers, EventMaintenance],
})
export class EventsModule {}
