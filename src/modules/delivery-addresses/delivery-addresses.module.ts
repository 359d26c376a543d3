import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DeliveryAddressesService } from './delivery-addresses.service';
import { DeliveryAddressesController } from './http/delivery-addresses.controller';
import { DeliveryAddressEntity } from './persistence/delivery-address.entity';
import { DeliveryAddressesRepository } from './persistence/delivery-addresses.repository';

/**
 * The caller's delivery addresses with their one default: HTTP (http/), the service, the rules of the
 * default (domain/) and the repository (persistence/). Orders copy the default through the exported
 * DeliveryAddressesService.
 */
@Module({
  imports: [TypeOrmModule.forFeature([DeliveryAddressEntity])],
  controllers: [DeliveryAddressesController],
  providers: [DeliveryAddressesRepository, DeliveryAddressesService],
  exports: [DeliveryAddressesService],
})
export class DeliveryAddressesModule {}
