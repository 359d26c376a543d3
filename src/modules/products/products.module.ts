import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ProductStockService } from './product-stock.service';
import { ProductsController } from './http/products.controller';
import { ProductEntity } from './persistence/product.entity';
import { ProductsRepository } from './persistence/products.repository';
import { ProductsService } from './products.service';

/** The catalogue: its HTTP API, and the stock service other modules reserve and release stock through. */
@Module({
  imports: [TypeOrmModule.forFeature([ProductEntity])],
  controllers: [ProductsController],
  providers: [ProductsRepository, ProductsService, ProductStockService],
  exports: [ProductStockService],
})
export class ProductsModule {}
