import { Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Caller } from '../../../platform/auth/caller';
import { CurrentCaller } from '../../../platform/auth/decorators';
import { ApiEndpoint } from '../../../platform/openapi/api-endpoint.decorator';
import { UuidParam } from '../../../platform/validation/uuid-param.decorator';
import { VersionedController } from '../../../platform/versioning/api-version';
import { OrderReadsService } from '../order-reads.service';
import { OrderStatusResponse } from './dto/order-response.dto';
import { ORDER_ERRORS } from './order-errors';

/**
 * The deprecated status read, replaced by `GET /api/v2/orders/
 * {orderId}`. Its lifecycle is declared once, in `deprecated`: the headers while it lives, 410 and absence
 * from the document after `LEGACY_STATUS_SUNSET` follow from it. Retiring it for good is deleting this
 * file and its line in OrdersModule (docs/versioning.md).
 */
@ApiTags('Orders')
@VersionedController('orders', 1)
export class OrderStatusLegacyController {
  constructor(private readonly reads: OrderReadsService) {}

  @Get(':orderId/status')
  @ApiEndpoint({
    operationId: 'getOrderStatusLegacy',
    summary: 'Get the status of an order',
    errors: [...ORDER_ERRORS],
    type: OrderStatusResponse,
    deprecated: {
      successor: '/api/v2/orders/{orderId}',
      sunset: (config) => config.versioning.legacyStatusSunset,
    },
  })
  async status(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
  ): Promise<OrderStatusResponse> {
    return { status: await this.reads.status(caller, orderId) };
  }
}
