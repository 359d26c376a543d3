import type { Type as ClassType } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ERROR_CODE_NAMES, type ErrorCode } from '../problem/error-codes';

/** Per-item outcome of one batch call, not a lifecycle (contract, Batch item status). */
export const BATCH_ITEM_STATUSES = ['SUCCESS', 'ERROR'] as const;
export type BatchItemStatus = (typeof BATCH_ITEM_STATUSES)[number];

/** The reduced error form of a batch item (contract, Errors 7): not a full problem body. */
export class BatchItemError {
  @ApiProperty({ enum: ERROR_CODE_NAMES, enumName: 'ErrorCode' })
  code: ErrorCode;

  @ApiProperty({ description: 'Human-readable text in the language of `Accept-Language`.' })
  detail: string;
}

/** A failed item of an atomic batch, in the `failedItems` member of its BATCH_TRANSACTION_FAILED problem. */
export class BatchFailedItem extends BatchItemError {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Zero-based position of the item in the request.',
  })
  index: number;
}

/**
 * One entry of `results`. An operation extends it with the identifier its items produce, present only on
 * SUCCESS (`orderId`, `itemId`); `error` is present only on ERROR.
 */
export class BatchItemResult {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Zero-based position of the item in the request.',
  })
  index: number;

  @ApiProperty({ enum: BATCH_ITEM_STATUSES, enumName: 'BatchItemStatus' })
  status: BatchItemStatus;

  @ApiPropertyOptional({ type: BatchItemError, description: 'Present only when `status` is ERROR.' })
  error?: BatchItemError;
}

export class BatchSummary {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Number of items in the request.' })
  total: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  succeeded: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: '`succeeded + failed = total`.' })
  failed: number;
}

/** The 200 body of every batch operation (contract, Batch response). */
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
    @ApiProperty({ type: [resultType], description: 'One entry per request item, in request order.' })
    results: R[];

    @ApiProperty({ type: BatchSummary })
    summary: BatchSummary;
  }
  return BatchResponseBody;
}
