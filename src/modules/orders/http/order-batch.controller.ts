import { Body, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../../../platform/auth/caller';
import { CurrentCaller } from '../../../platform/auth/decorators';
import { BatchResults } from '../../../platform/batch/batch-results';
import { ifMatchVersions } from '../../../platform/http/conditional-requests';
import { Idempotent } from '../../../platform/idempotency/idempotent.decorator';
import { ApiEndpoint } from '../../../platform/openapi/api-endpoint.decorator';
import type { Language } from '../../../platform/problem/language';
import { ResponseLanguage } from '../../../platform/problem/response-language';
import { UuidParam } from '../../../platform/validation/uuid-param.decorator';
import { VersionedController } from '../../../platform/versioning/api-version';
import { OrderBatchService } from '../order-batch.service';
import {
  AddOrderItemsBatchRequest,
  ConfirmOrdersBatchRequest,
  CreateOrdersBatchRequest,
  OrderBatchResponse,
  OrderItemBatchResponse,
} from './dto/order-batch.dto';
import { orderEtag } from './order.view';

const PARTIAL_SUCCESS =
  'Partial success: every item succeeds or fails on its own and the answer is 200 either way, one result ' +
  'per item (`index`, `status`, and `error {code, detail}` on failure, `detail` in the language of ' +
  '`Accept-Language`) plus a summary. ';
const LIMITS =
  ' 1 to 100 items (more: 400 BATCH_SIZE_EXCEEDED); a malformed item fails the whole request with 400 ' +
  'VALIDATION_ERROR. An Idempotency-Key replays the whole response.';

/**
 * The order batches. `/orders/batch` and `/orders/batch/confirm` are literal
 * paths beside `/orders/{orderId}/…`: Fastify matches static segments first.
 */
@ApiTags('Orders')
@VersionedController('orders', 1)
export class OrderBatchController {
  constructor(
    private readonly batches: OrderBatchService,
    private readonly results: BatchResults,
  ) {}

  @Post('batch')
  @HttpCode(200)
  @Idempotent()
  @ApiEndpoint({
    operationId: 'batchCreateOrders',
    summary: 'Create many single-line orders for the caller',
    description:
      PARTIAL_SUCCESS +
      "Each item creates one order of the caller with that one line (and a copy of the caller's default " +
      'delivery address, if any). Item errors: PRODUCT_NOT_FOUND, ' +
      'PRODUCT_DISCONTINUED, PRODUCT_OUT_OF_STOCK, INSUFFICIENT_STOCK (each item is checked against the ' +
      'whole stock, as a single create is; confirm reserves it).' +
      LIMITS,
    errors: ['BATCH_SIZE_EXCEEDED'],
    type: OrderBatchResponse,
  })
  async createOrders(
    @CurrentCaller() caller: Caller,
    @Body() body: CreateOrdersBatchRequest,
    @ResponseLanguage() lang: Language,
  ): Promise<OrderBatchResponse> {
    const outcomes = await this.batches.createOrders(caller, body.items);
    return this.results.respond(outcomes, (orderId) => ({ orderId }), lang);
  }

  @Post('batch/confirm')
  @HttpCode(200)
  @Idempotent()
  @ApiEndpoint({
    operationId: 'batchConfirmOrders',
    summary: 'Confirm many orders and reserve their stock',
    description:
      PARTIAL_SUCCESS +
      'Each item ends as POST /orders/{orderId}/confirm would if the items ran one after the other in ' +
      'request order (they run in one transaction; stock goes to the orders in request order, and an order ' +
      'named twice is confirmed once). Item errors: ' +
      'ORDER_NOT_FOUND, ACCESS_DENIED, ORDER_EMPTY, INVALID_ORDER_STATE, INSUFFICIENT_STOCK.' +
      LIMITS,
    errors: ['BATCH_SIZE_EXCEEDED'],
    type: OrderBatchResponse,
  })
  async confirmOrders(
    @CurrentCaller() caller: Caller,
    @Body() body: ConfirmOrdersBatchRequest,
    @ResponseLanguage() lang: Language,
  ): Promise<OrderBatchResponse> {
    const outcomes = await this.batches.confirmOrders(caller, body.items);
    return this.results.respond(outcomes, (orderId) => ({ orderId }), lang);
  }

  @Post(':orderId/items/batch')
  @HttpCode(200)
  @Idempotent()
  @ApiEndpoint({
    operationId: 'batchAddOrderItems',
    conditional: 'write',
    summary: 'Add many items to an order, all or none',
    description:
      'Atomic: all items are added in one transaction or none is. If any item fails (PRODUCT_NOT_FOUND, ' +
      'PRODUCT_DISCONTINUED, PRODUCT_OUT_OF_STOCK, INSUFFICIENT_STOCK), nothing changes and the answer is ' +
      '400 BATCH_TRANSACTION_FAILED whose `failedItems` lists `{index, code, detail}` of each failed item. ' +
      "On success every result carries the new `itemId` and `ETag` is the order's new version. Only while " +
      'the order is CREATED; honours If-Match.' +
      LIMITS,
    errors: [
      'ORDER_NOT_FOUND',
      'ACCESS_DENIED',
      'INVALID_ORDER_STATE',
      'BATCH_SIZE_EXCEEDED',
      'BATCH_TRANSACTION_FAILED',
    ],
    type: OrderItemBatchResponse,
  })
  addItems(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @Body() body: AddOrderItemsBatchRequest,
    @ResponseLanguage() lang: Language,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OrderItemBatchResponse> {
    return this.results.atomic(
      async () => {
        const expected = ifMatchVersions(request, orderId);
        const { order, itemIds } = await this.batches.addItems(caller, orderId, body.items, expected);
        void reply.header('etag', orderEtag(order));
        return itemIds;
      },
      (itemId) => ({ itemId }),
      lang,
    );
  }
}
