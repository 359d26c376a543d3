import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OrderItemEntity } from './order-item.entity';
import { OrderLinesPricer } from './order-lines';
import { OrderEntity } from './order.entity';
import { OrdersController } from './orders.controller';
import { OrdersService } from './orders.service';
import { OrdersQueryService } from './query/orders-query.service';

@Module({
  imports: [TypeOrmModule.forFeature([OrderEntity, OrderItemEntity])],
  controllers: [OrdersController],
  providers: [OrdersService, OrderLinesPricer, OrdersQueryService],
  exports: [OrdersService, OrderLinesPricer],
})
export class OrdersModule {}
