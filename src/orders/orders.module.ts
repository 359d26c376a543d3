import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BatchModule } from '../batch/batch.module';
import { OrderBatchController } from './batch/order-batch.controller';
import { OrderBatchService } from './batch/order-batch.service';
import { OrderItemEntity } from './order-item.entity';
import { OrderLinesPricer } from './order-lines';
import { OrderEntity } from './order.entity';
import { OrdersController } from './orders.controller';
import { OrdersService } from './orders.service';
import { OrdersQueryService } from './query/orders-query.service';

@Module({
  imports: [TypeOrmModule.forFeature([OrderEntity, OrderItemEntity]), BatchModule],
  controllers: [OrdersController, OrderBatchController],
  providers: [OrdersService, OrderLinesPricer, OrdersQueryService, OrderBatchService],
  exports: [OrdersService, OrderLinesPricer],
})
export class OrdersModule {}
