import { ApiPropertyOptional } from '@nestjs/swagger';
import { ROLES } from '../../../../platform/auth/caller';
import {
  email,
  INT32_MAX,
  integer,
  listOf,
  oneOf,
  RequestField,
  ResponseField,
  text,
  timestamp,
  uuid,
} from '../../../../platform/validation/fields';
import { ReadOnly } from '../../../../platform/validation/read-only.decorator';

const DISPLAY_NAME = text({ min: 1, max: 200 });
const EMAIL = email(320);
/** `users.region_id` is an `integer` column. */
const REGION_ID = integer({ min: 0, max: INT32_MAX });
const SEGMENT = text({ min: 1, max: 50 });

/** Body of `PUT /users/me`: the editable profile fields; absent fields are removed. */
export class ReplaceProfileRequest {
  @RequestField(DISPLAY_NAME, { presence: 'optional' })
  displayName?: string;

  @RequestField(EMAIL, { presence: 'optional' })
  email?: string;

  @RequestField(REGION_ID, {
    presence: 'optional',
    description: 'Region of the customer (used by order search).',
  })
  regionId?: number;

  @RequestField(SEGMENT, {
    presence: 'optional',
    description: 'Customer segment (used by order search).',
  })
  segment?: string;

  @ApiPropertyOptional({ readOnly: true, description: 'Read-only; sending it is a validation error.' })
  @ReadOnly()
  userId?: unknown;

  @ApiPropertyOptional({ readOnly: true, description: 'Read-only; sending it is a validation error.' })
  @ReadOnly()
  roles?: unknown;

  @ApiPropertyOptional({ readOnly: true, description: 'Read-only; sending it is a validation error.' })
  @ReadOnly()
  createdAt?: unknown;
}

export class UserResponse {
  @ResponseField(uuid())
  userId: string;

  @ResponseField(listOf(oneOf(ROLES, 'Role'), { max: ROLES.length }))
  roles: string[];

  @ResponseField(DISPLAY_NAME, { optional: true })
  displayName?: string;

  @ResponseField(EMAIL, { optional: true })
  email?: string;

  @ResponseField(REGION_ID, { optional: true })
  regionId?: number;

  @ResponseField(SEGMENT, { optional: true })
  segment?: string;

  @ResponseField(timestamp())
  createdAt: Date;

  @ResponseField(timestamp(), { optional: true })
  updatedAt?: Date;
}
