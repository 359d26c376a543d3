import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsInt, IsOptional, IsString, Length, MaxLength, Min } from 'class-validator';
import { ReadOnly } from '../validation/read-only.decorator';

/** Body of `PUT /users/me`: the editable profile fields; absent fields are removed. */
export class ReplaceProfileRequest {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  displayName?: string;

  @ApiPropertyOptional({ format: 'email', maxLength: 320 })
  @IsOptional()
  @IsEmail()
  @MaxLength(320)
  email?: string;

  @ApiPropertyOptional({ minimum: 0, description: 'Region of the customer (used by order search).' })
  @IsOptional()
  @IsInt()
  @Min(0)
  regionId?: number;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 50,
    description: 'Customer segment (used by order search).',
  })
  @IsOptional()
  @IsString()
  @Length(1, 50)
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
  @ApiProperty({ format: 'uuid' })
  userId: string;

  @ApiProperty({ enum: ['CUSTOMER', 'ADMIN'], enumName: 'Role', isArray: true })
  roles: string[];

  @ApiPropertyOptional()
  displayName?: string;

  @ApiPropertyOptional({ format: 'email' })
  email?: string;

  @ApiPropertyOptional()
  regionId?: number;

  @ApiPropertyOptional()
  segment?: string;

  @ApiProperty({ format: 'date-time', example: '2026-01-31T12:00:00Z' })
  createdAt: Date;

  @ApiPropertyOptional({ format: 'date-time', example: '2026-01-31T12:00:00Z' })
  updatedAt?: Date;
}
