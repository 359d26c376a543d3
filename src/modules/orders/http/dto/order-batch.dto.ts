import { BatchRequestOf } from '../../../../platform/batch/batch-request';
import { BatchItemResult, BatchResponseOf } from '../../../../platform/batch/batch-response';
import { RequestField, ResponseField, uuid } from '../../../../platform/validation/fields';
import { CreateOrderItemDto } from './order-request.dto';

/** `POST /orders/batch`: each item (`CreateOrderItem`) becomes one single-line order of the caller. */
export class CreateOrdersBatchRequest extends BatchRequestOf(CreateOrderItemDto) {}

export class ConfirmOrdersBatchItem {
  @RequestField(uuid())
  orderId: string;
}

/** `POST /orders/batch/confirm`: each item names an order to confirm. */
export class ConfirmOrdersBatchRequest extends BatchRequestOf(ConfirmOrdersBatchItem) {}

/** `POST /orders/{orderId}/items/batch`: the lines to add to the order, all or none. */
export class AddOrderItemsBatchRequest extends BatchRequestOf(CreateOrderItemDto) {}

export class OrderBatchResult extends BatchItemResult {
  @ResponseField(uuid(), { optional: true, description: 'The created or confirmed order; only on SUCCESS.' })
  orderId?: string;
}

export class OrderBatchResponse extends BatchResponseOf(OrderBatchResult) {}

export class OrderItemBatchResult extends BatchItemResult {
  @ResponseField(uuid(), { optional: true, description: 'The added item; only on SUCCESS.' })
  itemId?: string;
}

export class OrderItemBatchResponse extends BatchResponseOf(OrderItemBatchResult) {}
