import { Body, Get, HttpCode, Module, Post, Query } from '@nestjs/common';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsEmail,
  IsEnum,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { Public } from '../../../src/platform/auth/decorators';
import { ToArray } from '../../../src/platform/validation/to-array.decorator';
import { UuidParam } from '../../../src/platform/validation/uuid-param.decorator';
import { VersionedController } from '../../../src/platform/versioning/api-version';

export const PROBE_PATH = '/api/v1/validation-probe';
/** The message of the uncaught error of `GET /failure`: none of it may reach a response. */
export const INTERNAL_FAILURE_MESSAGE = 'SELECT secret FROM users /home/app/x.ts';

enum ProbeStatus {
  CREATED = 'CREATED',
  CONFIRMED = 'CONFIRMED',
}

class ProbeLine {
  @IsDefined()
  @IsUUID()
  productId: string;

  @IsDefined()
  @IsInt()
  @Min(1)
  @Max(1000)
  quantity: number;
}

class ProbeAddress {
  @IsDefined()
  @IsString()
  @Length(1, 200)
  streetName: string;

  @IsDefined()
  @Matches(/^\d{6}$/, { context: { format: 'NNNNNN' } })
  zipCode: string;
}

/** A body with every kind of field the mechanism maps: nested object, list of objects, formats, bounds. */
class ProbeOrderBody {
  @IsOptional()
  @IsUUID()
  customerId?: string;

  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(3)
  @ValidateNested({ each: true })
  @Type(() => ProbeLine)
  items: ProbeLine[];

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ProbeAddress)
  deliveryAddress?: ProbeAddress;

  @IsOptional()
  @IsString()
  @MaxLength(10)
  note?: string;

  @IsOptional()
  @IsEmail()
  contactEmail?: string;

  @IsOptional()
  @IsISO8601({ strict: true })
  deliverBy?: string;

  @IsOptional()
  @IsIn(['STANDARD', 'EXPRESS'])
  shipping?: string;
}

class ProbeListQuery {
  @IsOptional()
  @ToArray()
  @IsEnum(ProbeStatus, { each: true })
  status?: ProbeStatus[];

  @IsOptional()
  @ToArray()
  @Type(() => Number)
  @IsInt({ each: true })
  regionIds?: number[];

  @Type(() => Number)
  @IsInt()
  @Min(1)
  page: number = 1;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  size: number = 20;
}

/** Test-only routes under /api/v1/validation-probe that exercise the validation pipe and the problem filter. */
@VersionedController('validation-probe', 1)
@Public()
class ValidationProbeController {
  @Post('orders')
  @HttpCode(201)
  create(@Body() body: ProbeOrderBody): ProbeOrderBody {
    return body;
  }

  @Get('orders')
  list(@Query() query: ProbeListQuery): ProbeListQuery {
    return query;
  }

  @Get('orders/:orderId')
  get(@UuidParam('orderId') orderId: string): { orderId: string } {
    return { orderId };
  }

  /** A body-less action. */
  @Post('orders/:orderId/confirm')
  @HttpCode(200)
  confirm(@UuidParam('orderId') orderId: string): { orderId: string } {
    return { orderId };
  }

  @Get('failure')
  fail(): never {
    throw new Error(INTERNAL_FAILURE_MESSAGE);
  }
}

@Module({ controllers: [ValidationProbeController] })
export class ValidationProbeModule {}
