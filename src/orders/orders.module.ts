import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BatchModule } from '../batch/batch.module';
import { DeliveryAddressesModule } from '../delivery-addresses/delivery-addresses.module';
import { ProductsModule } from '../products/products.module';
import { OrderActionsController } from './http/order-actions.controller';
import { OrderBatchController } from './http/order-batch.controller';
import { OrderItemsController } from './http/order-items.controller';
import { OrderStatusLegacyController } from './http/order-status-legacy.controller';
import { OrdersV2Controller } from './http/orders-v2.controller';
import { OrdersController } from './http/orders.controller';
import { OrderActionsService } from './order-actions.service';
import { OrderBatchService } from './order-batch.service';
import { OrderChanges } from './order-changes.service';
import { OrderDeletionHooks } from './order-deletion-hooks';
import { OrderEditingService } from './order-editing.service';
import { OrderItemsService } from './order-items.service';
import { OrderLinesPricer } from './order-lines.service';
import { OrderReadsService } from './order-reads.service';
import { OrderItemEntity } from './persistence/order-item.entity';
import { OrderEntity } from './persistence/order.entity';
import { OrdersRepository } from './persistence/orders.repository';

/**
 * Orders: HTTP (http/: v1, the deprecated v1 status read, and v2, which differs in payload mapping only),
 * use-case services (reads, editing, actions, items, batch) over the model and state table (domain/), and
 * one repository holding every orders statement (persistence/). Other modules read orders through
 * OrderReadsService, and delete what they keep for an order through OrderDeletionHooks.
 */
@Module({
  // The entities describe the tables for `npm run migration:generate`; statements live in the repository.
  imports: [
    TypeOrmModule.forFeature([OrderEntity, OrderItemEntity]),
    BatchModule,
    ProductsModule,
    DeliveryAddressesModule,
  ],
  controllers: [
    OrdersController,
    OrderActionsController,
    OrderItemsController,
    OrderBatchController,
    OrderStatusLegacyController,
    OrdersV2Controller,
  ],
  providers: [
    OrdersRepository,
    OrderChanges,
    OrderDeletionHooks,
    OrderLinesPricer,
    OrderReadsService,
    OrderEditingService,
    OrderActionsService,
    OrderItemsService,
    OrderBatchService,
  ],
  exports: [OrderReadsService, OrderDeletionHooks],
})
export class OrdersModule {}
