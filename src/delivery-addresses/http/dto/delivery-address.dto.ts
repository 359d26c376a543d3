import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsOptional, IsString, Length, ValidateIf } from 'class-validator';
import { OffsetPageResponse } from '../../../paging/page-response';
import { ReadOnly } from '../../../validation/read-only.decorator';

const STREET_NAME = { minLength: 1, maxLength: 200, example: 'Tverskaya 1' } as const;
const ZIP_CODE = { minLength: 1, maxLength: 20, example: '125009' } as const;
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
  @ApiProperty(STREET_NAME)
  @IsDefined()
  @IsString()
  @Length(1, 200)
  streetName: string;

  @ApiProperty(ZIP_CODE)
  @IsDefined()
  @IsString()
  @Length(1, 20)
  zipCode: string;

  @ApiPropertyOptional({ description: IS_DEFAULT })
  @IsOptional()
  @IsBoolean()
  isDefault?: boolean;
}

/** In a merge patch, absent leaves a field alone; `null` (remove) is validated, and fails on required fields. */
const PresentOrAbsent = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

/** Merge patch of an address (RFC 7396); every field is required on the resource, so `null` is refused. */
export class PatchDeliveryAddressRequest extends AddressReadOnlyFields {
  @ApiPropertyOptional(STREET_NAME)
  @PresentOrAbsent()
  @IsDefined()
  @IsString()
  @Length(1, 200)
  streetName?: string;

  @ApiPropertyOptional(ZIP_CODE)
  @PresentOrAbsent()
  @IsDefined()
  @IsString()
  @Length(1, 20)
  zipCode?: string;

  @ApiPropertyOptional({ description: IS_DEFAULT })
  @PresentOrAbsent()
  @IsDefined()
  @IsBoolean()
  isDefault?: boolean;
}

/** An address of the caller's address book (the order's own `deliveryAddress` is a copy of two fields). */
export class SavedDeliveryAddressResponse {
  @ApiProperty({ format: 'uuid' })
  addressId: string;

  @ApiProperty({ example: 'Tverskaya 1' })
  streetName: string;

  @ApiProperty({ example: '125009' })
  zipCode: string;

  @ApiProperty({ description: 'Exactly one address of a user with any address is the default.' })
  isDefault: boolean;

  @ApiProperty({ format: 'date-time', example: '2026-01-31T12:00:00Z' })
  createdAt: Date;
}

export class SavedDeliveryAddressPageResponse extends OffsetPageResponse(
  SavedDeliveryAddressResponse,
  'SavedDeliveryAddressPageResponse',
) {}
