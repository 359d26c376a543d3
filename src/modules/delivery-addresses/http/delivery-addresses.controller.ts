import { Body, Delete, Get, HttpCode, Patch, Post, Put, Query, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Caller } from '../../../platform/auth/caller';
import { CurrentCaller } from '../../../platform/auth/decorators';
import { AliasRoute } from '../../../platform/http/alias-route';
import { Idempotent } from '../../../platform/idempotency/idempotent.decorator';
import { ApiEndpoint, locationHeader } from '../../../platform/openapi/api-endpoint.decorator';
import { OffsetPage, OffsetPageQuery } from '../../../platform/paging/offset-page';
import { Consumes, MERGE_PATCH } from '../../../platform/validation/content-type.decorator';
import { UuidParam } from '../../../platform/validation/uuid-param.decorator';
import { VersionedController } from '../../../platform/versioning/api-version';
import { DeliveryAddressesService } from '../delivery-addresses.service';
import {
  DeliveryAddressRequest,
  PatchDeliveryAddressRequest,
  SavedDeliveryAddressPageResponse,
  SavedDeliveryAddressResponse,
} from './dto/delivery-address.dto';
import { toDeliveryAddressResponse } from './delivery-address.view';

/**
 * The caller's delivery addresses: caller-scoped, so the path has no user and another user's address is
 * 404; `default` selects the one default address (docs/decisions/0051-delivery-addresses.md).
 */
@ApiTags('DeliveryAddresses')
@VersionedController('delivery-addresses', 1)
export class DeliveryAddressesController {
  constructor(private readonly addresses: DeliveryAddressesService) {}

  @Get()
  @ApiEndpoint({
    operationId: 'getDeliveryAddresses',
    replicaLag: true,
    summary: "List the caller's delivery addresses, newest first",
    type: SavedDeliveryAddressPageResponse,
  })
  async list(
    @CurrentCaller() caller: Caller,
    @Query() query: OffsetPageQuery,
  ): Promise<OffsetPage<SavedDeliveryAddressResponse>> {
    const page = await this.addresses.list(caller.userId, query);
    return { ...page, content: page.content.map(toDeliveryAddressResponse) };
  }

  @Post()
  @HttpCode(201)
  @Idempotent()
  @ApiEndpoint({
    operationId: 'createDeliveryAddress',
    summary: 'Add a delivery address',
    description: 'The first address becomes the default; `isDefault: true` makes a later one the default.',
    headers: locationHeader('the created address', '/api/v1/delivery-addresses/{addressId}'),
    type: SavedDeliveryAddressResponse,
    successStatus: 201,
  })
  async create(
    @CurrentCaller() caller: Caller,
    @Body() body: DeliveryAddressRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SavedDeliveryAddressResponse> {
    const address = await this.addresses.create(caller.userId, body);
    void reply.header('location', `/api/v1/delivery-addresses/${address.addressId}`);
    return toDeliveryAddressResponse(address);
  }

  @AliasRoute('GET', 'default', { selects: "the caller's default delivery address" })
  @ApiEndpoint({
    operationId: 'getDefaultDeliveryAddress',
    summary: "Get the caller's default delivery address",
    errors: ['ADDRESS_NOT_FOUND'],
    type: SavedDeliveryAddressResponse,
  })
  async getDefault(@CurrentCaller() caller: Caller): Promise<SavedDeliveryAddressResponse> {
    return toDeliveryAddressResponse(await this.addresses.getDefault(caller.userId));
  }

  @Get(':addressId')
  @ApiEndpoint({
    operationId: 'getDeliveryAddress',
    summary: 'Get a delivery address',
    errors: ['ADDRESS_NOT_FOUND'],
    type: SavedDeliveryAddressResponse,
  })
  async get(
    @CurrentCaller() caller: Caller,
    @UuidParam('addressId') addressId: string,
  ): Promise<SavedDeliveryAddressResponse> {
    return toDeliveryAddressResponse(await this.addresses.get(caller.userId, addressId));
  }

  @Put(':addressId')
  @ApiEndpoint({
    operationId: 'updateDeliveryAddress',
    summary: 'Replace the street and zip code of a delivery address',
    description: 'Without `isDefault` the address stays the default or not, as it was.',
    errors: ['ADDRESS_NOT_FOUND'],
    type: SavedDeliveryAddressResponse,
  })
  async replace(
    @CurrentCaller() caller: Caller,
    @UuidParam('addressId') addressId: string,
    @Body() body: DeliveryAddressRequest,
  ): Promise<SavedDeliveryAddressResponse> {
    return toDeliveryAddressResponse(await this.addresses.change(caller.userId, addressId, body));
  }

  @Patch(':addressId')
  @Consumes(MERGE_PATCH)
  @Idempotent()
  @ApiEndpoint({
    operationId: 'patchDeliveryAddress',
    summary: 'Change a delivery address with a merge patch',
    description: 'JSON Merge Patch (RFC 7396); every field is required, so `null` is refused.',
    errors: ['ADDRESS_NOT_FOUND', 'UNSUPPORTED_MEDIA_TYPE'],
    type: SavedDeliveryAddressResponse,
  })
  async patch(
    @CurrentCaller() caller: Caller,
    @UuidParam('addressId') addressId: string,
    @Body() body: PatchDeliveryAddressRequest,
  ): Promise<SavedDeliveryAddressResponse> {
    return toDeliveryAddressResponse(await this.addresses.change(caller.userId, addressId, body));
  }

  @Delete(':addressId')
  @HttpCode(204)
  @ApiEndpoint({
    operationId: 'deleteDeliveryAddress',
    summary: 'Delete a delivery address',
    description: 'Deleting the default makes the newest remaining address the default.',
    errors: ['ADDRESS_NOT_FOUND'],
    successStatus: 204,
  })
  async remove(@CurrentCaller() caller: Caller, @UuidParam('addressId') addressId: string): Promise<void> {
    await this.addresses.remove(caller.userId, addressId);
  }
}
