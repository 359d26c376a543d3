import type { Type as ClassType } from '@nestjs/common';
import { ERROR_CODE_NAMES, type ErrorCode } from '../problem/error-codes';
import { MAX_PROBLEM_TEXT_LENGTH } from '../problem/problem';
import { integer, listOf, nested, oneOf, ResponseField, text } from '../validation/fields';
import { MAX_BATCH_ITEMS } from './batch-request';

const INDEX = integer({ min: 0, max: MAX_BATCH_ITEMS - 1 });
const COUNT = integer({ min: 0, max: MAX_BATCH_ITEMS });
const DETAIL = text({ min: 1, max: MAX_PROBLEM_TEXT_LENGTH, multiline: true });

/** Per-item outcome of one batch call, not a lifecycle. */
export const BATCH_ITEM_STATUSES = ['SUCCESS', 'ERROR'] as const;
export type BatchItemStatus = (typeof BATCH_ITEM_STATUSES)[number];

/** The reduced error form of a batch item: not a full problem body. */
export class BatchItemError {
  @ResponseField(oneOf(ERROR_CODE_NAMES, 'ErrorCode'))
  code: ErrorCode;

  @ResponseField(DETAIL, { description: 'Human-readable text in the language of `Accept-Language`.' })
  detail: string;
}

/** A failed item of an atomic batch, in the `failedItems` member of its BATCH_TRANSACTION_FAILED problem. */
export class BatchFailedItem extends BatchItemError {
  @ResponseField(INDEX, { description: 'Zero-based position of the item in the request.' })
  index: number;
}

/**
 * One entry of `results`. An operation extends it with the identifier its items produce, present only on
 * SUCCESS (`orderId`, `itemId`); `error` is present only on ERROR.
 */
export class BatchItemResult {
  @ResponseField(INDEX, { description: 'Zero-based position of the item in the request.' })
  index: number;

  @ResponseField(oneOf(BATCH_ITEM_STATUSES, 'BatchItemStatus'))
  status: BatchItemStatus;

  @ResponseField(nested(BatchItemError), {
    optional: true,
    description: 'Present only when `status` is ERROR.',
  })
  error?: BatchItemError;
}

export class BatchSummary {
  @ResponseField(COUNT, { description: 'Number of items in the request.' })
  total: number;

  @ResponseField(COUNT)
  succeeded: number;

  @ResponseField(COUNT, { description: '`succeeded + failed = total`.' })
  failed: number;
}

/** The 200 body of every batch operation. */
export interface BatchResponse<R extends BatchItemResult = BatchItemResult> {
  results: R[];
  summary: BatchSummary;
}

/**
 * The response DTO of a batch operation whose results are `resultType`; extend it to name it:
 *
 *   export class OrderBatchResponse extends BatchResponseOf(OrderBatchResult) {}
 */
export function BatchResponseOf<R extends BatchItemResult>(
  resultType: ClassType<R>,
): ClassType<BatchResponse<R>> {
  class BatchResponseBody implements BatchResponse<R> {
    @ResponseField(listOf(nested(resultType), { max: MAX_BATCH_ITEMS }), {
      description: 'One entry per request item, in request order.',
    })
    results: R[];

    @ResponseField(nested(BatchSummary))
    summary: BatchSummary;
  }
  return BatchResponseBody;
}
