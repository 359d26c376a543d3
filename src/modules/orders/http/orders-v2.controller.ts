import { Get, Query, Res } from '@nestjs/common';
import { ApiExtraModels, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Caller } from '../../../platform/auth/caller';
import { CurrentCaller } from '../../../platform/auth/decorators';
import { ApiEndpoint } from '../../../platform/openapi/api-endpoint.decorator';
import { UuidParam } from '../../../platform/validation/uuid-param.decorator';
import { VersionedController } from '../../../platform/versioning/api-version';
import { OrderReadsService } from '../order-reads.service';
import { ListOrdersQuery } from './dto/order-list.dto';
import { OrderV2CursorPageResponse, OrderV2PageResponse, OrderV2Response } from './dto/order-response.dto';
import { ORDER_ERRORS } from './order-errors';
import { listCriteria } from './order-list-query';
import { sendOrder, sendOrderPage } from './order.view';

/**
 * Orders v2: the reads of v1 (same services, query parameters, paging, ownership, ETags) with the v2
 * bodies, money as objects, which PostgreSQL renders from the same declaration as v1's.
 */
@ApiTags('Orders')
@VersionedController('orders', 2)
export class OrdersV2Controller {
  constructor(private readonly reads: OrderReadsService) {}

  @Get()
  @ApiExtraModels(OrderV2PageResponse, OrderV2CursorPageResponse)
  @ApiEndpoint({
    operationId: 'getOrdersV2',
    replicaLag: true,
    summary: "List the caller's orders (all orders for an admin), money as objects",
    description:
      'The query parameters, paging (offset, or keyset with `cursor`), sort and ownership of ' +
      '`GET /api/v1/orders`; orders in the v2 shape.',
    errors: ['ACCESS_DENIED'],
    schema: {
      oneOf: [
        { $ref: getSchemaPath(OrderV2PageResponse) },
        { $ref: getSchemaPath(OrderV2CursorPageResponse) },
      ],
    },
  })
  async list(
    @CurrentCaller() caller: Caller,
    @Query() query: ListOrdersQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    return sendOrderPage(reply, await this.reads.list(caller, listCriteria(query), 'v2'));
  }

  @Get(':orderId')
  @ApiEndpoint({
    operationId: 'getOrderV2',
    conditional: 'read',
    summary: 'Get an order, money as objects',
    errors: [...ORDER_ERRORS],
    type: OrderV2Response,
  })
  async get(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    return sendOrder(reply, await this.reads.get(caller, orderId, 'v2'));
  }
}
