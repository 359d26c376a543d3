import type { DeliveryAddress } from '../domain/delivery-address';
import type { SavedDeliveryAddressResponse } from './dto/delivery-address.dto';

export function toDeliveryAddressResponse(address: DeliveryAddress): SavedDeliveryAddressResponse {
  return {
    addressId: address.addressId,
    streetName: address.streetName,
    zipCode: address.zipCode,
    isDefault: address.isDefault,
    createdAt: address.createdAt,
  };
}
