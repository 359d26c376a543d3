import { ApiPropertyOptional } from '@nestjs/swagger';
import { OffsetPageResponse } from '../../../../platform/paging/page-response';
import {
  boolean,
  RequestField,
  ResponseField,
  text,
  timestamp,
  uuid,
} from '../../../../platform/validation/fields';
import { ReadOnly } from '../../../../platform/validation/read-only.decorator';

/** The bounds of an order's delivery address (orders/http/dto/order-request.dto.ts): orders copy these. */
const STREET_NAME = text({ min: 1, max: 200, example: 'Tverskaya 1' });
const ZIP_CODE = text({ min: 1, max: 20, example: '125009' });
const IS_DEFAULT =
  'true makes this the default address (the previous default stops being it). The first address is the ' +
  'default whatever is sent; false on the default is refused (DEFAULT_ADDRESS_REQUIRED).';

/** Fields a response has and a request may not set. */
class AddressReadOnlyFields {
  @ApiPropertyOptional({ readOnly: true, description: 'Read-only; sending it is a validation error.' })
  @ReadOnly()
  addressId?: unknown;

  @ApiPropertyOptional({ readOnly: true, description: 'Read-only; sending it is a validation error.' })
  @ReadOnly()
  createdAt?: unknown;
}

/** Body of `POST /delivery-addresses` and `PUT /delivery-addresses/{addressId}`. */
export class DeliveryAddressRequest extends AddressReadOnlyFields {
  @RequestField(STREET_NAME)
  streetName: string;

  @RequestField(ZIP_CODE)
  zipCode: string;

  @RequestField(boolean(), { presence: 'optional', description: IS_DEFAULT })
  isDefault?: boolean;
}

/** Merge patch of an address (RFC 7396); every field is required on the resource, so `null` is refused. */
export class PatchDeliveryAddressRequest extends AddressReadOnlyFields {
  @RequestField(STREET_NAME, { presence: 'patch' })
  streetName?: string;

  @RequestField(ZIP_CODE, { presence: 'patch' })
  zipCode?: string;

  @RequestField(boolean(), { presence: 'patch', description: IS_DEFAULT })
  isDefault?: boolean;
}

/** An address of the caller's address book (the order's own `deliveryAddress` is a copy of two fields). */
export class SavedDeliveryAddressResponse {
  @ResponseField(uuid())
  addressId: string;

  @ResponseField(STREET_NAME)
  streetName: string;

  @ResponseField(ZIP_CODE)
  zipCode: string;

  @ResponseField(boolean(), {
    description: 'Exactly one address of a user with any address is the default.',
  })
  isDefault: boolean;

  @ResponseField(timestamp())
  createdAt: Date;
}

export class SavedDeliveryAddressPageResponse extends OffsetPageResponse(
  SavedDeliveryAddressResponse,
  'SavedDeliveryAddressPageResponse',
) {}
