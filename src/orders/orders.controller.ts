import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiExtraModels, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../auth/caller';
import { CurrentCaller } from '../auth/decorators';
import { assertIfMatch } from '../http/conditional-requests';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { ApiEndpoint, etagHeader, locationHeader } from '../openapi/api-endpoint.decorator';
import { CursorPage } from '../paging/cursor-page';
import { OffsetPage, OffsetPageQuery } from '../paging/offset-page';
import { Consumes, MERGE_PATCH } from '../validation/content-type.decorator';
import { UuidParam } from '../validation/uuid-param.decorator';
import { OrderAction } from './domain/order-state-machine';
import {
  AddOrderItemRequest,
  CancelOrderRequest,
  CreateOrderRequest,
  PatchOrderRequest,
  RefundOrderRequest,
  ReplaceOrderRequest,
  ShipOrderRequest,
} from './dto/order-request.dto';
import {
  OrderItemPageResponse,
  OrderItemResponse,
  OrderCursorPageResponse,
  OrderPageResponse,
  OrderResponse,
} from './dto/order-response.dto';
import { OrderRecord, toItemResponse, toOrderResponse } from './order.view';
import { ListOrdersQuery, SearchOrdersRequest } from './query/order-list.dto';
import { OrdersQueryService } from './query/orders-query.service';
import { ActionParams, orderEtag, OrdersService, Precondition } from './orders.service';

/** Orders are per caller and change often: clients revalidate with If-None-Match. */
const ORDER_CACHE = 'private, no-cache';
const ORDER_ERRORS = ['ORDER_NOT_FOUND', 'ACCESS_DENIED'] as const;
const WRITE_ERRORS = [...ORDER_ERRORS, 'INVALID_ORDER_STATE', 'CONCURRENT_MODIFICATION'] as const;

/** Thin HTTP layer over OrdersService: DTO validation, conditional headers, status codes. */
@ApiTags('Orders')
@Controller({ path: 'orders', version: '1' })
export class OrdersController {
  constructor(
    private readonly orders: OrdersService,
    private readonly queries: OrdersQueryService,
  ) {}

  @Get()
  @ApiExtraModels(OrderPageResponse, OrderCursorPageResponse)
  @ApiEndpoint({
    operationId: 'getOrders',
    summary: "List the caller's orders (all orders for an admin)",
    description:
      'Offset page by default; `cursor` (empty for the first chunk) selects keyset cursor paging, which stays ' +
      'fast at any depth. Filters combine with AND; customers only ever see their own orders.',
    errors: ['ACCESS_DENIED'],
    // The offset page, or the cursor page when `cursor` is given (contract, Pages).
    schema: {
      oneOf: [{ $ref: getSchemaPath(OrderPageResponse) }, { $ref: getSchemaPath(OrderCursorPageResponse) }],
    },
  })
  async list(
    @CurrentCaller() caller: Caller,
    @Query() query: ListOrdersQuery,
  ): Promise<OffsetPage<OrderResponse> | CursorPage<OrderResponse>> {
    const { kind: _kind, ...page } = await this.queries.list(caller, query);
    return { ...page, content: page.content.map(toOrderResponse) };
  }

  @Post('search')
  @HttpCode(200)
  @ApiEndpoint({
    operationId: 'searchOrders',
    summary: 'Search orders with a structured query',
    description:
      'Same result shape and ownership rules as GET /orders; for nested filters and long value lists.',
    errors: ['ACCESS_DENIED'],
    type: OrderPageResponse,
  })
  async search(
    @CurrentCaller() caller: Caller,
    @Body() body: SearchOrdersRequest,
  ): Promise<OffsetPage<OrderResponse>> {
    const page = await this.queries.search(caller, body);
    return { ...page, content: page.content.map(toOrderResponse) };
  }

  @Post()
  @HttpCode(201)
  @Idempotent({ required: true })
  @ApiEndpoint({
    operationId: 'createOrder',
    headers: { ...locationHeader('the created order', '/api/v1/orders/{orderId}'), ...etagHeader() },
    summary: 'Create an order',
    description:
      'Requires an Idempotency-Key (uuid); a retry with the same key and body replays the first response.',
    errors: ['ACCESS_DENIED', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_PROGRESS'],
    type: OrderResponse,
    successStatus: 201,
  })
  async create(
    @CurrentCaller() caller: Caller,
    @Body() body: CreateOrderRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OrderResponse> {
    const record = await this.orders.create(caller, body);
    void reply.header('location', `/api/v1/orders/${record.order.orderId}`);
    return this.send(record, reply);
  }

  @Get('latest')
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
  ): Promise<OrderResponse> {
    return this.send(await this.orders.latest(caller), reply);
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
  ): Promise<OrderResponse> {
    return this.send(await this.orders.get(caller, orderId), reply);
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
  ): Promise<OrderResponse> {
    const record = await this.orders.replace(caller, orderId, body, this.ifMatch(request));
    return this.send(record, reply);
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
  ): Promise<OrderResponse> {
    const record = await this.orders.patch(caller, orderId, body, this.ifMatch(request));
    return this.send(record, reply);
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
    await this.orders.remove(caller, orderId, this.ifMatch(request));
  }

  @Post(':orderId/confirm')
  @HttpCode(200)
  @Idempotent()
  @ApiEndpoint({
    operationId: 'confirmOrder',
    conditional: 'write',
    summary: 'Confirm an order and reserve its stock',
    description:
      'CREATED → CONFIRMED. Needs at least one item (409 ORDER_EMPTY); reserves stock atomically (409 INSUFFICIENT_STOCK).',
    errors: [...WRITE_ERRORS, 'ORDER_EMPTY', 'INSUFFICIENT_STOCK'],
    type: OrderResponse,
  })
  confirm(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OrderResponse> {
    return this.act(caller, orderId, 'confirm', {}, request, reply);
  }

  @Post(':orderId/cancel')
  @HttpCode(200)
  @Idempotent()
  @ApiEndpoint({
    operationId: 'cancelOrder',
    conditional: 'write',
    summary: 'Cancel an order',
    description: 'CREATED or CONFIRMED → CANCELLED; stock reserved at confirm is released.',
    errors: [...WRITE_ERRORS],
    type: OrderResponse,
  })
  cancel(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @Body() body: CancelOrderRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OrderResponse> {
    return this.act(caller, orderId, 'cancel', body, request, reply);
  }

  @Post(':orderId/ship')
  @HttpCode(200)
  @Idempotent()
  @ApiEndpoint({
    operationId: 'shipOrder',
    conditional: 'write',
    summary: 'Ship a confirmed order (admin)',
    description: 'CONFIRMED → SHIPPED; needs a delivery address (409 DELIVERY_ADDRESS_MISSING). Admin only.',
    errors: [...WRITE_ERRORS, 'DELIVERY_ADDRESS_MISSING'],
    type: OrderResponse,
  })
  ship(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @Body() body: ShipOrderRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OrderResponse> {
    return this.act(caller, orderId, 'ship', body, request, reply);
  }

  @Post(':orderId/deliver')
  @HttpCode(200)
  @Idempotent()
  @ApiEndpoint({
    operationId: 'deliverOrder',
    conditional: 'write',
    summary: 'Mark a shipped order delivered (admin)',
    description: 'SHIPPED → DELIVERED. Admin only.',
    errors: [...WRITE_ERRORS],
    type: OrderResponse,
  })
  deliver(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OrderResponse> {
    return this.act(caller, orderId, 'deliver', {}, request, reply);
  }

  @Post(':orderId/refund')
  @HttpCode(200)
  @Idempotent()
  @ApiEndpoint({
    operationId: 'refundOrder',
    conditional: 'write',
    summary: 'Refund a shipped or delivered order (admin)',
    description: 'SHIPPED or DELIVERED → REFUNDED; optional body with a reason. Admin only.',
    errors: [...WRITE_ERRORS],
    type: OrderResponse,
  })
  refund(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @Body() body: RefundOrderRequest | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OrderResponse> {
    return this.act(caller, orderId, 'refund', body ?? {}, request, reply);
  }

  @Get(':orderId/items')
  @ApiEndpoint({
    operationId: 'getOrderItems',
    summary: 'List the items of an order',
    errors: [...ORDER_ERRORS],
    type: OrderItemPageResponse,
  })
  async items(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @Query() query: OffsetPageQuery,
  ): Promise<OffsetPage<OrderItemResponse>> {
    const page = await this.orders.listItems(caller, orderId, query);
    return { ...page, content: page.content.map(toItemResponse) };
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
  async addItem(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @Body() body: AddOrderItemRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OrderItemResponse> {
    const { item } = await this.orders.addItem(caller, orderId, body, this.ifMatch(request));
    void reply.header('location', `/api/v1/orders/${orderId}/items/${item.itemId}`);
    return toItemResponse(item);
  }

  @Get(':orderId/items/:itemId')
  @ApiEndpoint({
    operationId: 'getOrderItem',
    summary: 'Get an item of an order',
    errors: [...ORDER_ERRORS, 'ITEM_NOT_FOUND'],
    type: OrderItemResponse,
  })
  async item(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @UuidParam('itemId') itemId: string,
  ): Promise<OrderItemResponse> {
    return toItemResponse(await this.orders.getItem(caller, orderId, itemId));
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
  async removeItem(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @UuidParam('itemId') itemId: string,
    @Req() request: FastifyRequest,
  ): Promise<void> {
    await this.orders.removeItem(caller, orderId, itemId, this.ifMatch(request));
  }

  private async act(
    caller: Caller,
    orderId: string,
    action: OrderAction,
    params: ActionParams,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<OrderResponse> {
    return this.send(await this.orders.act(caller, orderId, action, params, this.ifMatch(request)), reply);
  }

  private ifMatch(request: FastifyRequest): Precondition {
    return (etag) => assertIfMatch(request, etag);
  }

  private send(record: OrderRecord, reply: FastifyReply): OrderResponse {
    void reply.header('etag', orderEtag(record.order)).header('cache-control', ORDER_CACHE);
    return toOrderResponse(record);
  }
}
