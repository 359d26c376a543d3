import { applyDecorators, Body, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../../../platform/auth/caller';
import { CurrentCaller, Roles } from '../../../platform/auth/decorators';
import { ifMatchVersions } from '../../../platform/http/conditional-requests';
import { Idempotent } from '../../../platform/idempotency/idempotent.decorator';
import { ApiEndpoint } from '../../../platform/openapi/api-endpoint.decorator';
import { OptionalBody } from '../../../platform/validation/body-rules';
import { UuidParam } from '../../../platform/validation/uuid-param.decorator';
import { VersionedController } from '../../../platform/versioning/api-version';
import {
  ActionParams,
  ORDER_TRANSITIONS,
  OrderAction,
  transitionErrors,
} from '../domain/order-state-machine';
import { OrderActionsService } from '../order-actions.service';
import { CancelOrderRequest, RefundOrderRequest, ShipOrderRequest } from './dto/order-request.dto';
import { OrderResponse } from './dto/order-response.dto';
import { WRITE_ERRORS } from './order-errors';
import { describeAction } from './order-state-machine.docs';
import { sendOrder } from './order.view';

/**
 * The route of an action of the state table: `POST /orders/{orderId}/<action>`, 200 with the order,
 * idempotent, honouring If-Match; its description, error codes and (for admin-only actions) the role
 * check come from the table's row.
 */
function ActionRoute(
  action: OrderAction,
  operation: { operationId: string; summary: string },
): MethodDecorator {
  const transition = ORDER_TRANSITIONS[action];
  return applyDecorators(
    // An admin-only action refuses others before anything else is looked at (the service checks again).
    ...(transition.permission === 'ADMIN' ? [Roles('ADMIN')] : []),
    Post(`:orderId/${action}`),
    HttpCode(200),
    Idempotent(),
    ApiEndpoint({
      ...operation,
      conditional: 'write',
      description: describeAction(action),
      errors: [...WRITE_ERRORS, ...transitionErrors(transition)],
      type: OrderResponse,
    }),
  );
}

/** The domain actions on an order, one route per row of the state table. */
@ApiTags('Orders')
@VersionedController('orders', 1)
export class OrderActionsController {
  constructor(private readonly actions: OrderActionsService) {}

  @ActionRoute('confirm', { operationId: 'confirmOrder', summary: 'Confirm an order and reserve its stock' })
  confirm(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    return this.act(caller, orderId, 'confirm', {}, request, reply);
  }

  @ActionRoute('cancel', { operationId: 'cancelOrder', summary: 'Cancel an order' })
  cancel(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @Body() body: CancelOrderRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    return this.act(caller, orderId, 'cancel', body, request, reply);
  }

  @ActionRoute('ship', { operationId: 'shipOrder', summary: 'Ship a confirmed order (admin)' })
  ship(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @Body() body: ShipOrderRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    return this.act(caller, orderId, 'ship', body, request, reply);
  }

  @ActionRoute('deliver', { operationId: 'deliverOrder', summary: 'Mark a shipped order delivered (admin)' })
  deliver(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    return this.act(caller, orderId, 'deliver', {}, request, reply);
  }

  @ActionRoute('refund', {
    operationId: 'refundOrder',
    summary: 'Refund a shipped or delivered order (admin)',
  })
  @OptionalBody()
  // The body is optional; as a DTO it is validated and documented like any other.
  @ApiBody({ type: RefundOrderRequest, required: false })
  refund(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @Body() body: RefundOrderRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    return this.act(caller, orderId, 'refund', body ?? {}, request, reply);
  }

  private async act(
    caller: Caller,
    orderId: string,
    action: OrderAction,
    params: ActionParams,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<Buffer> {
    const expected = ifMatchVersions(request, orderId);
    return sendOrder(reply, await this.actions.act(caller, orderId, action, params, expected));
  }
}
