import { Body, Delete, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../../../platform/auth/caller';
import { CurrentCaller } from '../../../platform/auth/decorators';
import { ifMatchVersions } from '../../../platform/http/conditional-requests';
import { Idempotent } from '../../../platform/idempotency/idempotent.decorator';
import { ApiEndpoint, locationHeader } from '../../../platform/openapi/api-endpoint.decorator';
import { sendJsonText } from '../../../platform/http/json-output';
import { OffsetPageQuery, offsetPageJson } from '../../../platform/paging/offset-page';
import { UuidParam } from '../../../platform/validation/uuid-param.decorator';
import { VersionedController } from '../../../platform/versioning/api-version';
import { OrderItemsService } from '../order-items.service';
import { OrderReadsService } from '../order-reads.service';
import { AddOrderItemRequest } from './dto/order-request.dto';
import { OrderItemPageResponse, OrderItemResponse } from './dto/order-response.dto';
import { ORDER_ERRORS, WRITE_ERRORS } from './order-errors';

/** The items of an order: `/orders/{orderId}/items[/{itemId}]`. */
@ApiTags('Orders')
@VersionedController('orders', 1)
export class OrderItemsController {
  constructor(
    private readonly reads: OrderReadsService,
    private readonly items: OrderItemsService,
  ) {}

  @Get(':orderId/items')
  @ApiEndpoint({
    operationId: 'getOrderItems',
    summary: 'List the items of an order',
    errors: [...ORDER_ERRORS],
    type: OrderItemPageResponse,
  })
  async list(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @Query() query: OffsetPageQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    const { contentJson, totalElements } = await this.reads.listItems(caller, orderId, query);
    return sendJsonText(reply, offsetPageJson(contentJson, totalElements, query));
  }

  @Post(':orderId/items')
  @HttpCode(201)
  @Idempotent()
  @ApiEndpoint({
    operationId: 'addOrderItem',
    conditional: 'write',
    headers: locationHeader('the added item', '/api/v1/orders/{orderId}/items/{itemId}'),
    summary: 'Add an item to an order',
    description: 'Only while CREATED; the product price is frozen on the line and the total recomputed.',
    errors: [...WRITE_ERRORS],
    type: OrderItemResponse,
    successStatus: 201,
  })
  async add(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @Body() body: AddOrderItemRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    const { item } = await this.items.addItem(caller, orderId, body, ifMatchVersions(request, orderId));
    void reply.header('location', `/api/v1/orders/${orderId}/items/${item.itemId}`);
    return sendJsonText(reply, [item.json]);
  }

  @Get(':orderId/items/:itemId')
  @ApiEndpoint({
    operationId: 'getOrderItem',
    summary: 'Get an item of an order',
    errors: [...ORDER_ERRORS, 'ITEM_NOT_FOUND'],
    type: OrderItemResponse,
  })
  async get(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @UuidParam('itemId') itemId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    return sendJsonText(reply, [await this.reads.getItem(caller, orderId, itemId)]);
  }

  @Delete(':orderId/items/:itemId')
  @HttpCode(204)
  @ApiEndpoint({
    operationId: 'deleteOrderItem',
    conditional: 'write',
    summary: 'Remove an item from an order',
    description: 'Only while CREATED; the total is recomputed.',
    errors: [...WRITE_ERRORS, 'ITEM_NOT_FOUND'],
    successStatus: 204,
  })
  async remove(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @UuidParam('itemId') itemId: string,
    @Req() request: FastifyRequest,
  ): Promise<void> {
    await this.items.removeItem(caller, orderId, itemId, ifMatchVersions(request, orderId));
  }
}
