import { Body, Get, HttpCode, Module, Param, Post, Query } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsDefined, IsIn, IsOptional, IsString, Length } from 'class-validator';
import { Public, Roles } from '../../../src/platform/auth/decorators';
import { Idempotent } from '../../../src/platform/idempotency/idempotent.decorator';
import {
  ApiEndpoint,
  ApiMultipartFile,
  locationHeader,
} from '../../../src/platform/openapi/api-endpoint.decorator';
import { AppException } from '../../../src/platform/problem/app-exception';
import { text } from '../../../src/platform/validation/fields';
import { ToArray } from '../../../src/platform/validation/to-array.decorator';
import { VersionedController } from '../../../src/platform/versioning/api-version';

/**
 * Test-only operations under /api/v1/openapi-probes, one per feature of `@ApiEndpoint` and
 * `@ApiMultipartFile`, so the OpenAPI document can be checked before (and besides) business endpoints.
 */
export const PROBE_PATH = '/api/v1/openapi-probes';
export const PROBE_KINDS = ['PLAIN', 'SPECIAL'] as const;
/** Sunset of the probe's already removed operation: long past. */
export const PAST_SUNSET = new Date('2020-01-01T00:00:00Z');

class ProbeResponse {
  @ApiProperty({ format: 'uuid' })
  probeId: string;

  @ApiProperty({ enum: PROBE_KINDS, enumName: 'ProbeKind' })
  kind: string;

  @ApiPropertyOptional()
  note?: string;
}

class CreateProbeRequest {
  @ApiProperty({ enum: PROBE_KINDS, enumName: 'ProbeKind' })
  @IsDefined()
  @IsIn(PROBE_KINDS)
  kind: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 100 })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  note?: string;
}

class ProbeListQuery {
  @ApiPropertyOptional({ enum: PROBE_KINDS, enumName: 'ProbeKind', isArray: true })
  @IsOptional()
  @ToArray()
  @IsIn(PROBE_KINDS, { each: true })
  kind?: string[];
}

class ProbeStatusResponse {
  @ApiProperty({ enum: PROBE_KINDS, enumName: 'ProbeKind' })
  kind: string;
}

@ApiTags('Probes')
@VersionedController('openapi-probes', 1)
class OpenApiProbeController {
  @Get()
  @Public()
  @ApiEndpoint({ operationId: 'getProbes', summary: 'List probes', type: [ProbeResponse] })
  list(@Query() _query: ProbeListQuery): ProbeResponse[] {
    return [];
  }

  @Post()
  @HttpCode(201)
  @Idempotent({ required: true })
  @ApiEndpoint({
    operationId: 'createProbe',
    summary: 'Create a probe',
    type: ProbeResponse,
    successStatus: 201,
    headers: locationHeader('the created probe', `${PROBE_PATH}/{probeId}`),
  })
  create(@Body() body: CreateProbeRequest): ProbeResponse {
    return { probeId: '00000000-0000-4000-8000-000000000000', kind: body.kind };
  }

  @Get(':probeId')
  @ApiEndpoint({
    operationId: 'getProbe',
    summary: 'Get a probe',
    errors: ['ORDER_NOT_FOUND'],
    type: ProbeResponse,
    conditional: 'read',
  })
  get(@Param('probeId') probeId: string): ProbeResponse {
    throw new AppException('ORDER_NOT_FOUND', { args: { orderId: probeId } });
  }

  @Post(':probeId/confirm')
  @HttpCode(200)
  @Roles('ADMIN')
  @ApiEndpoint({
    operationId: 'confirmProbe',
    summary: 'Confirm a probe',
    errors: ['ORDER_NOT_FOUND', 'INVALID_ORDER_STATE'],
    type: ProbeResponse,
    conditional: 'write',
  })
  confirm(@Param('probeId') probeId: string): ProbeResponse {
    throw new AppException('INVALID_ORDER_STATE', { args: { status: 'CANCELLED', orderId: probeId } });
  }

  @Post(':probeId/attachments')
  @HttpCode(201)
  @ApiMultipartFile({
    field: 'file',
    maxBytes: 10 * 1024 * 1024,
    allowedTypes: ['application/pdf', 'image/png', 'image/jpeg'],
    extraFields: {
      description: { kind: text({ min: 0, max: 500, multiline: true }), description: 'What the file is.' },
    },
  })
  @ApiEndpoint({
    operationId: 'uploadProbeAttachment',
    summary: 'Attach a file to a probe',
    errors: ['ORDER_NOT_FOUND', 'FILE_TOO_LARGE', 'UNSUPPORTED_FILE_TYPE'],
    successStatus: 201,
    schema: { type: 'object', properties: { attachmentId: { type: 'string', format: 'uuid' } } },
  })
  upload(@Param('probeId') _probeId: string): never {
    throw new AppException('UNSUPPORTED_FILE_TYPE');
  }

  @Get(':probeId/status')
  @ApiEndpoint({
    operationId: 'getProbeStatusLegacy',
    summary: 'Get the kind of a probe (deprecated)',
    type: ProbeStatusResponse,
    deprecated: {
      successor: '/api/v2/openapi-probes/{probeId}',
      sunset: (config) => config.versioning.legacyStatusSunset,
    },
  })
  status(@Param('probeId') _probeId: string): ProbeStatusResponse {
    return { kind: 'PLAIN' };
  }

  @Get(':probeId/history')
  @ApiEndpoint({
    operationId: 'getProbeHistoryLegacy',
    summary: 'Get the history of a probe (removed)',
    successStatus: 204,
    deprecated: { successor: '/api/v2/openapi-probes/{probeId}', sunset: () => PAST_SUNSET },
  })
  history(@Param('probeId') _probeId: string): void {}
}

@Module({ controllers: [OpenApiProbeController] })
export class OpenApiProbeModule {}
