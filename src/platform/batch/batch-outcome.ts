import { AppException, TranslationArgs, ViolationInput } from '../problem/app-exception';
import { ERROR_CODES, ErrorCode } from '../problem/error-codes';

/** How one item of a batch ended: its value, or what it failed with (an AppException, or a bug). */
export type BatchOutcome<T> =
  { index: number; ok: true; value: T } | { index: number; ok: false; failure: unknown };

/** A failed item of a batch: its zero-based index in the request and what it failed with. */
export interface BatchItemFailure {
  index: number;
  failure: unknown;
}

export function succeeded<T>(index: number, value: T): BatchOutcome<T> {
  return { index, ok: true, value };
}

export function failed<T = never>(index: number, failure: unknown): BatchOutcome<T> {
  return { index, ok: false, failure };
}

/**
 * Runs `work` for every item, one after the other in index order, and records each outcome: a failing item
 * never stops the others. Sequential on purpose: items may share one
 * transaction (savepoints), and one batch request holds at most one pooled connection at a time.
 */
export async function settleEach<I, T>(
  items: readonly I[],
  work: (item: I, index: number) => Promise<T>,
): Promise<Array<BatchOutcome<T>>> {
  const outcomes: Array<BatchOutcome<T>> = [];
  for (const [index, item] of items.entries()) {
    try {
      outcomes.push(succeeded(index, await work(item, index)));
    } catch (failure: unknown) {
      outcomes.push(failed(index, failure));
    }
  }
  return outcomes;
}

/**
 * Thrown by the service of an atomic batch (all or nothing) when items fail: every failed item, after the
 * transaction was rolled back. `BatchResults.atomic()` turns it into 400 BATCH_TRANSACTION_FAILED.
 */
export class AtomicBatchFailure extends Error {
  constructor(readonly failures: readonly BatchItemFailure[]) {
    super(`atomic batch failed at items ${failures.map((f) => f.index).join(', ')}`);
    this.name = 'AtomicBatchFailure';
  }
}

/** Path prefix of the fields of item `index` in violations: `items[3].` (the request's own field names). */
export function itemFieldPrefix(index: number): string {
  return `items[${index}].`;
}

const ITEM_FIELD = /^items\[(\d+)\]/;

/** The item a violation field such as `items[3].quantity` belongs to; undefined for other fields. */
export function itemIndexOf(field: string): number | undefined {
  const match = ITEM_FIELD.exec(field);
  return match ? Number(match[1]) : undefined;
}

function isErrorCode(code: string): code is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERROR_CODES, code);
}

/**
 * The failure of an item from a violation of one of its fields. A domain violation that is also an error
 * code (PRODUCT_NOT_FOUND, INSUFFICIENT_STOCK, …) becomes that code, its detail the `errors.<CODE>` text
 * with `args` (the item's own values, e.g. `productId`) and the violation's arguments; any other violation
 * stays a VALIDATION_ERROR naming the field.
 */
export function violationFailure(violation: ViolationInput, args: TranslationArgs = {}): AppException {
  if (!isErrorCode(violation.code)) return AppException.validation([violation]);
  return new AppException(violation.code, { args: { ...args, ...violation.args } });
}

/**
 * The failed items behind violations on `items[i].<field>` (as `OrderLinePricingService` reports them with
 * `itemFieldPrefix`): one failure per item, from its first violation, in index order. `argsOf` gives the
 * detail arguments of an item. Violations of other fields are not item failures and are left out.
 */
export function itemFailuresOf(
  violations: readonly ViolationInput[],
  argsOf: (index: number) => TranslationArgs = () => ({}),
): BatchItemFailure[] {
  const byIndex = new Map<number, BatchItemFailure>();
  for (const violation of violations) {
    const index = itemIndexOf(violation.field);
    if (index === undefined || byIndex.has(index)) continue;
    byIndex.set(index, { index, failure: violationFailure(violation, argsOf(index)) });
  }
  return [...byIndex.values()].sort((a, b) => a.index - b.index);
}
