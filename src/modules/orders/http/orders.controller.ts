import { Body, Delete, Get, HttpCode, Patch, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiExtraModels, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../../../platform/auth/caller';
import { CurrentCaller } from '../../../platform/auth/decorators';
import { AliasRoute } from '../../../platform/http/alias-route';
import { ifMatchVersions } from '../../../platform/http/conditional-requests';
import { Idempotent } from '../../../platform/idempotency/idempotent.decorator';
import { ApiEndpoint, etagHeader, locationHeader } from '../../../platform/openapi/api-endpoint.decorator';
import { Consumes, MERGE_PATCH } from '../../../platform/validation/content-type.decorator';
import { UuidParam } from '../../../platform/validation/uuid-param.decorator';
import { VersionedController } from '../../../platform/versioning/api-version';
import { OrderEditingService } from '../order-editing.service';
import { OrderReadsService } from '../order-reads.service';
import { ListOrdersQuery, SearchOrdersRequest } from './dto/order-list.dto';
import { CreateOrderRequest, PatchOrderRequest, ReplaceOrderRequest } from './dto/order-request.dto';
import { OrderCursorPageResponse, OrderPageResponse, OrderResponse } from './dto/order-response.dto';
import { ORDER_ERRORS, WRITE_ERRORS } from './order-errors';
import { listCriteria, searchCriteria } from './order-list-query';
import { sendOrder, sendOrderPage } from './order.view';

/** Orders: lists, search, create, read, replace, patch, delete. Thin: mapping, headers, status codes. */
@ApiTags('Orders')
@VersionedController('orders', 1)
export class OrdersController {
  constructor(
    private readonly reads: OrderReadsService,
    private readonly editing: OrderEditingService,
  ) {}

  @Get()
  @ApiExtraModels(OrderPageResponse, OrderCursorPageResponse)
  @ApiEndpoint({
    operationId: 'getOrders',
    replicaLag: true,
    summary: "List the caller's orders (all orders for an admin)",
    description:
      'Offset page by default; `cursor` (empty for the first chunk) selects keyset cursor paging, which stays ' +
      'fast at any depth. Filters combine with AND; customers only ever see their own orders.',
    errors: ['ACCESS_DENIED'],
    // The offset page, or the cursor page when `cursor` is given.
    schema: {
      oneOf: [{ $ref: getSchemaPath(OrderPageResponse) }, { $ref: getSchemaPath(OrderCursorPageResponse) }],
    },
  })
  async list(
    @CurrentCaller() caller: Caller,
    @Query() query: ListOrdersQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    return sendOrderPage(reply, await this.reads.list(caller, listCriteria(query), 'v1'));
  }

  @Post('search')
  @HttpCode(200)
  @ApiEndpoint({
    operationId: 'searchOrders',
    replicaLag: true,
    summary: 'Search orders with a structured query',
    description:
      'Same result shape and ownership rules as GET /orders; for nested filters and long value lists.',
    errors: ['ACCESS_DENIED'],
    type: OrderPageResponse,
  })
  async search(
    @CurrentCaller() caller: Caller,
    @Body() body: SearchOrdersRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    return sendOrderPage(reply, await this.reads.list(caller, searchCriteria(body), 'v1'));
  }

  @Post()
  @HttpCode(201)
  @Idempotent({ required: true })
  @ApiEndpoint({
    operationId: 'createOrder',
    headers: { ...locationHeader('the created order', '/api/v1/orders/{orderId}'), ...etagHeader() },
    summary: 'Create an order',
    description:
      'Requires an Idempotency-Key (uuid); a retry with the same key and body replays the first response. ' +
      "Without `deliveryAddress` the order takes a copy of the customer's default delivery address, if any.",
    errors: ['ACCESS_DENIED', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_PROGRESS'],
    type: OrderResponse,
    successStatus: 201,
  })
  async create(
    @CurrentCaller() caller: Caller,
    @Body() body: CreateOrderRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    const order = await this.editing.create(caller, body);
    void reply.header('location', `/api/v1/orders/${order.orderId}`);
    return sendOrder(reply, order);
  }

  @AliasRoute('GET', 'latest', { selects: "the caller's most recent order" })
  @ApiEndpoint({
    operationId: 'getLatestOrder',
    conditional: 'read',
    summary: "Get the caller's most recent order",
    errors: ['ORDER_NOT_FOUND'],
    type: OrderResponse,
  })
  async latest(
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    return sendOrder(reply, await this.reads.latest(caller, 'v1'));
  }

  @Get(':orderId')
  @ApiEndpoint({
    operationId: 'getOrder',
    conditional: 'read',
    summary: 'Get an order',
    errors: [...ORDER_ERRORS],
    type: OrderResponse,
  })
  async get(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    return sendOrder(reply, await this.reads.get(caller, orderId, 'v1'));
  }

  @Put(':orderId')
  @ApiEndpoint({
    operationId: 'updateOrder',
    conditional: 'write',
    summary: 'Replace the items, delivery address and note of an order',
    description: 'Only while CREATED. Fields absent from the body are removed. Honours If-Match.',
    errors: [...WRITE_ERRORS],
    type: OrderResponse,
  })
  async replace(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @Body() body: ReplaceOrderRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    return sendOrder(
      reply,
      await this.editing.replace(caller, orderId, body, ifMatchVersions(request, orderId)),
    );
  }

  @Patch(':orderId')
  @Consumes(MERGE_PATCH)
  @Idempotent()
  @ApiEndpoint({
    operationId: 'patchOrder',
    conditional: 'write',
    summary: 'Change the note or delivery address with a merge patch',
    description: 'JSON Merge Patch (RFC 7396); null removes a field. Allowed while CREATED or CONFIRMED.',
    errors: [...WRITE_ERRORS, 'UNSUPPORTED_MEDIA_TYPE'],
    type: OrderResponse,
  })
  async patch(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @Body() body: PatchOrderRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    return sendOrder(
      reply,
      await this.editing.patch(caller, orderId, body, ifMatchVersions(request, orderId)),
    );
  }

  @Delete(':orderId')
  @HttpCode(204)
  @ApiEndpoint({
    operationId: 'deleteOrder',
    conditional: 'write',
    summary: 'Delete an order',
    description: 'Only while CREATED or CANCELLED.',
    errors: [...WRITE_ERRORS],
    successStatus: 204,
  })
  async remove(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @Req() request: FastifyRequest,
  ): Promise<void> {
    await this.editing.remove(caller, orderId, ifMatchVersions(request, orderId));
  }
}
