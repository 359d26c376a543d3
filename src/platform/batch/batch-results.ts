import { Injectable, Logger } from '@nestjs/common';
import { AppException } from '../problem/app-exception';
import type { Language } from '../problem/language';
import { ProblemRenderer } from '../problem/problem-renderer';
import { currentTrace } from '../tracing/trace-context';
import { AtomicBatchFailure, BatchItemFailure, BatchOutcome, succeeded } from './batch-outcome';
import { BatchFailedItem, BatchItemError, BatchItemResult, BatchResponse } from './batch-response';

/**
 * Builds the responses of batch operations (docs/decisions/0026-batch-operations.md) from item
 * outcomes. A batch endpoint is: a body `extends BatchRequestOf(Item)`, a service that returns item
 * outcomes for partial success (`settleEach` for work with its own transaction per item,
 * `settleInSavepoints` for writes in one transaction) or throws `AtomicBatchFailure` (all or nothing), and
 *
 *   @Post('batch') @HttpCode(200) @Idempotent() @ApiEndpoint({ …, type: OrderBatchResponse })
 *   async create(@Body() body: CreateOrdersBatchRequest, @ResponseLanguage() lang: Language) {
 *     return this.results.respond(await this.service.create(body.items), (orderId) => ({ orderId }), lang);
 *   }
 *
 * Item errors are the reduced `{code, detail}` form, `detail` being the problem detail text of the code
 * (`errors.<CODE>` with the failure's arguments), rendered by the one problem renderer in the language
 * `@ResponseLanguage()` (src/platform/problem/response-language.ts) resolves, which is also sent as Content-Language.
 */
@Injectable()
export class BatchResults {
  private readonly logger = new Logger('Batch');

  constructor(private readonly problems: ProblemRenderer) {}

  /**
   * The 200 body of a partial-success batch: one result per outcome (index order), SUCCESS with the
   * fields `successFields` makes of the item's value (`{ orderId }`) or ERROR with `{code, detail}`, and
   * the summary.
   */
  respond<T, S extends object>(
    outcomes: ReadonlyArray<BatchOutcome<T>>,
    successFields: (value: T) => S,
    lang: Language,
  ): BatchResponse<BatchItemResult & Partial<S>> {
    const results = [...outcomes]
      .sort((a, b) => a.index - b.index)
      .map((outcome): BatchItemResult & Partial<S> => {
        if (outcome.ok) return { index: outcome.index, status: 'SUCCESS', ...successFields(outcome.value) };
        const error = this.itemError(outcome, lang);
        // None of S's fields is set, which Partial<S> allows; TypeScript cannot tell for a generic S.
        return { index: outcome.index, status: 'ERROR', error } as BatchItemResult & Partial<S>;
      });
    const succeededCount = outcomes.filter((outcome) => outcome.ok).length;
    return {
      results,
      summary: {
        total: outcomes.length,
        succeeded: succeededCount,
        failed: outcomes.length - succeededCount,
      },
    };
  }

  /**
   * Runs an atomic batch (one value per item, in order) and answers like `respond`; when it throws
   * `AtomicBatchFailure`, the whole request fails with 400 BATCH_TRANSACTION_FAILED whose extension member
   * `failedItems` is `[{index, code, detail}]`.
   */
  async atomic<T, S extends object>(
    run: () => Promise<readonly T[]>,
    successFields: (value: T) => S,
    lang: Language,
  ): Promise<BatchResponse<BatchItemResult & Partial<S>>> {
    let values: readonly T[];
    try {
      values = await run();
    } catch (error: unknown) {
      if (error instanceof AtomicBatchFailure) throw this.transactionFailed(error.failures, lang);
      throw error;
    }
    return this.respond(
      values.map((value, index) => succeeded(index, value)),
      successFields,
      lang,
    );
  }

  /** 400 BATCH_TRANSACTION_FAILED naming every failed item with its localized `{code, detail}`. */
  transactionFailed(failures: readonly BatchItemFailure[], lang: Language): AppException {
    const failedItems: BatchFailedItem[] = failures.map((failure) => ({
      index: failure.index,
      ...this.itemError(failure, lang),
    }));
    return new AppException('BATCH_TRANSACTION_FAILED', { extensions: { failedItems } });
  }

  /**
   * `{code, detail}` of a failed item. A failure that is not an AppException is a bug or an outage: the item
   * reports INTERNAL_ERROR with the generic text (never the error's own message) and the error is logged
   * with the request's trace id, as the problem filter does for a whole request.
   */
  itemError({ index, failure }: BatchItemFailure, lang: Language): BatchItemError {
    let exception: AppException;
    if (failure instanceof AppException) {
      exception = failure;
    } else {
      this.logger.error(
        { msg: 'batch item failed', index, err: failure, traceId: currentTrace()?.traceId },
        undefined,
      );
      exception = new AppException('INTERNAL_ERROR');
    }
    const problem = this.problems.render(exception, lang);
    // A validation failure has no violations list in the reduced form: its detail names them instead.
    const detail = problem.violations?.length
      ? problem.violations.map((v) => (v.field ? `${v.field}: ${v.message}` : v.message)).join(' ')
      : problem.detail;
    return { code: exception.code, detail };
  }
}
