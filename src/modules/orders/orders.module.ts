import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BatchModule } from '../../platform/batch/batch.module';
import { DeliveryAddressesModule } from '../delivery-addresses/delivery-addresses.module';
import { EventsModule } from '../events/events.module';
import { ProductsModule } from '../products/products.module';
import { OrderActionsController } from './http/order-actions.controller';
import { OrderBatchController } from './http/order-batch.controller';
import { OrderEventsController } from './http/order-events.controller';
import { OrderItemsController } from './http/order-items.controller';
import { OrderStatusLegacyController } from './http/order-status-legacy.controller';
import { OrdersV2Controller } from './http/orders-v2.controller';
import { OrdersController } from './http/orders.controller';
import { OrderActionsService } from './order-actions.service';
import { OrderBatchService } from './order-batch.service';
import { OrderChanges } from './order-changes.service';
import { OrderDeletionHooks } from './order-deletion-hooks';
import { OrderEditingService } from './order-editing.service';
import { OrderExportsService } from './order-exports.service';
import { OrderItemsService } from './order-items.service';
import { OrderLinePricingService } from './order-line-pricing.service';
import { OrderReadsService } from './order-reads.service';
import { OrderReportsService } from './order-reports.service';
import { OrderEntity, OrderItemEntity } from './persistence/order.entity';
import { OrderExportsRepository } from './persistence/order-exports.repository';
import { OrderReportsRepository } from './persistence/order-reports.repository';
import { OrdersRepository } from './persistence/orders.repository';

/**
 * Orders: HTTP (http/: v1, the deprecated v1 status read, and v2, which differs in its bodies only), use-case
 * services (reads, editing, actions, items, batch; reports' and exports' reads) over the declaration of the
 * order's fields, the model and the state table (domain/), and repositories (persistence/): the orders'
 * statements, and those of reports and of exports. Other modules read orders through OrderReadsService,
 * OrderReportsService and OrderExportsService, and delete what they keep for an order through
 * OrderDeletionHooks.
 */
@Module({
  // The entities describe the tables for `npm run migration:generate`; statements live in the repositories.
  imports: [
    TypeOrmModule.forFeature([OrderEntity, OrderItemEntity]),
    BatchModule,
    ProductsModule,
    DeliveryAddressesModule,
    EventsModule,
  ],
  controllers: [
    OrdersController,
    OrderActionsController,
    OrderItemsController,
    OrderEventsController,
    OrderBatchController,
    OrderStatusLegacyController,
    OrdersV2Controller,
  ],
  providers: [
    OrdersRepository,
    OrderReportsRepository,
    OrderExportsRepository,
    OrderChanges,
    OrderDeletionHooks,
    OrderLinePricingService,
    OrderReadsService,
    OrderReportsService,
    OrderExportsService,
    OrderEditingService,
    OrderActionsService,
    OrderItemsService,
    OrderBatchService,
  ],
  exports: [OrderReadsService, OrderReportsService, OrderExportsService, OrderDeletionHooks],
})
export class OrdersModule {}
