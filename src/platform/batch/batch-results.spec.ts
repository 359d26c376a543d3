import { Logger } from '@nestjs/common';
import { AppException } from '../problem/app-exception';
import { buildProblem, ProblemBody } from '../problem/problem';
import type { ProblemRenderer } from '../problem/problem-renderer';
import { AtomicBatchFailure, failed, succeeded } from './batch-outcome';
import { BatchResults } from './batch-results';

/** Stands in for the problem renderer: the detail shows the language and the code with its arguments. */
const problems = {
  render: (exception: AppException, lang: string): ProblemBody =>
    buildProblem({
      status: exception.status,
      code: exception.code,
      detail: `${lang}:${exception.code}${JSON.stringify(exception.options.args ?? {})}`,
      violations: exception.options.violations?.map((v) => ({
        field: v.field,
        code: v.code,
        message: `${lang}:${v.code}`,
      })),
    }),
} as unknown as ProblemRenderer;

describe('BatchResults', () => {
  const results = new BatchResults(problems);
  let logged: jest.SpyInstance;

  beforeEach(() => {
    logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => logged.mockRestore());

  it('answers one result per outcome in index order, with the summary', () => {
    const body = results.respond(
      [
        succeeded(2, 'order-2'),
        failed(0, new AppException('ORDER_NOT_FOUND', { args: { orderId: 'x' } })),
        succeeded(1, 'order-1'),
      ],
      (orderId) => ({ orderId }),
      'en',
    );
    expect(body).toEqual({
      results: [
        {
          index: 0,
          status: 'ERROR',
          error: { code: 'ORDER_NOT_FOUND', detail: 'en:ORDER_NOT_FOUND{"orderId":"x"}' },
        },
        { index: 1, status: 'SUCCESS', orderId: 'order-1' },
        { index: 2, status: 'SUCCESS', orderId: 'order-2' },
      ],
      summary: { total: 3, succeeded: 2, failed: 1 },
    });
    expect(logged).not.toHaveBeenCalled();
  });

  it('answers an empty summary for no outcomes', () => {
    expect(results.respond([], () => ({}), 'ru')).toEqual({
      results: [],
      summary: { total: 0, succeeded: 0, failed: 0 },
    });
  });

  it('reports an unexpected error as INTERNAL_ERROR with the generic text, never its message, and logs it', () => {
    const error = results.itemError({ index: 4, failure: new Error('connection to 10.0.0.5 lost') }, 'en');
    expect(error).toEqual({ code: 'INTERNAL_ERROR', detail: 'en:INTERNAL_ERROR{}' });
    expect(logged).toHaveBeenCalledWith(
      expect.objectContaining({ msg: 'batch item failed', index: 4, err: expect.any(Error) }),
      undefined,
    );
  });

  it('details a VALIDATION_ERROR item by its violations, since the reduced form has no list', () => {
    const failure = AppException.validation([
      { field: 'items[0].quantity', code: 'MIN', args: { min: 1 } },
      { field: '', code: 'INVALID_JSON' },
    ]);
    expect(results.itemError({ index: 0, failure }, 'ru')).toEqual({
      code: 'VALIDATION_ERROR',
      detail: 'items[0].quantity: ru:MIN ru:INVALID_JSON',
    });
  });

  describe('atomic', () => {
    it('answers every value as a SUCCESS in order', async () => {
      const body = await results.atomic(
        async () => ['a', 'b'],
        (itemId) => ({ itemId }),
        'en',
      );
      expect(body).toEqual({
        results: [
          { index: 0, status: 'SUCCESS', itemId: 'a' },
          { index: 1, status: 'SUCCESS', itemId: 'b' },
        ],
        summary: { total: 2, succeeded: 2, failed: 0 },
      });
    });

    it('turns AtomicBatchFailure into 400 BATCH_TRANSACTION_FAILED with localized failedItems', async () => {
      const run = () =>
        Promise.reject(
          new AtomicBatchFailure([
            { index: 1, failure: new AppException('PRODUCT_NOT_FOUND', { args: { productId: 'p' } }) },
            { index: 3, failure: new AppException('INSUFFICIENT_STOCK') },
          ]),
        );
      const error = await results.atomic(run, () => ({}), 'ru').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppException);
      expect(error).toMatchObject({
        code: 'BATCH_TRANSACTION_FAILED',
        status: 400,
        options: {
          extensions: {
            failedItems: [
              { index: 1, code: 'PRODUCT_NOT_FOUND', detail: 'ru:PRODUCT_NOT_FOUND{"productId":"p"}' },
              { index: 3, code: 'INSUFFICIENT_STOCK', detail: 'ru:INSUFFICIENT_STOCK{}' },
            ],
          },
        },
      });
    });

    it('lets any other error through untouched', async () => {
      const notFound = new AppException('ORDER_NOT_FOUND');
      await expect(
        results.atomic(
          () => Promise.reject(notFound),
          () => ({}),
          'en',
        ),
      ).rejects.toBe(notFound);
    });
  });
});
