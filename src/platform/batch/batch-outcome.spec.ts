import { AppException } from '../problem/app-exception';
import {
  AtomicBatchFailure,
  itemFailuresOf,
  itemFieldPrefix,
  itemIndexOf,
  settleEach,
  violationFailure,
} from './batch-outcome';

describe('settleEach', () => {
  it('runs every item in order, one at a time, recording values and failures', async () => {
    const started: number[] = [];
    let running = 0;
    const boom = new AppException('ORDER_EMPTY');
    const outcomes = await settleEach(['a', 'b', 'c'], async (item, index) => {
      running += 1;
      expect(running).toBe(1);
      started.push(index);
      await new Promise((resolve) => setImmediate(resolve));
      running -= 1;
      if (item === 'b') throw boom;
      return item.toUpperCase();
    });
    expect(started).toEqual([0, 1, 2]);
    expect(outcomes).toEqual([
      { index: 0, ok: true, value: 'A' },
      { index: 1, ok: false, failure: boom },
      { index: 2, ok: true, value: 'C' },
    ]);
  });

  it('resolves to no outcomes for no items', async () => {
    await expect(settleEach([], () => Promise.resolve(1))).resolves.toEqual([]);
  });
});

describe('item fields', () => {
  it('names an item field as the request does and finds the item back', () => {
    expect(`${itemFieldPrefix(3)}quantity`).toBe('items[3].quantity');
    expect(itemIndexOf('items[3].quantity')).toBe(3);
    expect(itemIndexOf('items[12]')).toBe(12);
    expect(itemIndexOf('note')).toBeUndefined();
    expect(itemIndexOf('lines[1].quantity')).toBeUndefined();
  });
});

describe('violationFailure', () => {
  it('turns a domain violation into its error code with the item arguments', () => {
    const failure = violationFailure(
      { field: 'items[0].quantity', code: 'INSUFFICIENT_STOCK', args: { available: 2 } },
      { productId: 'p' },
    );
    expect(failure.code).toBe('INSUFFICIENT_STOCK');
    expect(failure.status).toBe(409);
    expect(failure.options.args).toEqual({ productId: 'p', available: 2 });
  });

  it('keeps any other violation a VALIDATION_ERROR naming the field', () => {
    const violation = { field: 'items[0].quantity', code: 'MIN' as const, args: { min: 1 } };
    const failure = violationFailure(violation);
    expect(failure.code).toBe('VALIDATION_ERROR');
    expect(failure.options.violations).toEqual([violation]);
  });
});

describe('itemFailuresOf', () => {
  it('gives one failure per item from its first violation, in index order, skipping other fields', () => {
    const failures = itemFailuresOf(
      [
        { field: 'items[2].productId', code: 'PRODUCT_NOT_FOUND' },
        { field: 'note', code: 'MAX_LENGTH' },
        { field: 'items[0].quantity', code: 'INSUFFICIENT_STOCK' },
        { field: 'items[2].quantity', code: 'INSUFFICIENT_STOCK' },
      ],
      (index) => ({ productId: `product-${index}` }),
    );
    expect(failures.map(({ index, failure }) => [index, (failure as AppException).code])).toEqual([
      [0, 'INSUFFICIENT_STOCK'],
      [2, 'PRODUCT_NOT_FOUND'],
    ]);
    expect((failures[1].failure as AppException).options.args).toEqual({ productId: 'product-2' });
  });
});

describe('AtomicBatchFailure', () => {
  it('carries the failed items and names them in its message', () => {
    const error = new AtomicBatchFailure([
      { index: 1, failure: new AppException('PRODUCT_NOT_FOUND') },
      { index: 4, failure: new AppException('INSUFFICIENT_STOCK') },
    ]);
    expect(error.failures.map((f) => f.index)).toEqual([1, 4]);
    expect(error.message).toBe('atomic batch failed at items 1, 4');
  });
});
