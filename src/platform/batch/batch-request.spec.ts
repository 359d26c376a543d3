import 'reflect-metadata';
import { ArgumentMetadata } from '@nestjs/common';
import { IsDefined, IsInt, Min } from 'class-validator';
import { AppException } from '../problem/app-exception';
import { ValidationPipe } from '../validation/validation.pipe';
import { BatchRequestOf, MAX_BATCH_ITEMS } from './batch-request';

class Item {
  @IsDefined()
  @IsInt()
  @Min(1)
  quantity: number;
}

class ItemsBatch extends BatchRequestOf(Item) {}
class SmallBatch extends BatchRequestOf(Item, 2) {}

const pipe = new ValidationPipe();
const body = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'body', metatype });

async function failureOf(value: unknown, metatype: ArgumentMetadata['metatype'] = ItemsBatch) {
  try {
    await pipe.transform(value, body(metatype));
  } catch (error: unknown) {
    if (error instanceof AppException) return error;
    throw error;
  }
  throw new Error('expected the body to be refused');
}

const items = (count: number, item: unknown = { quantity: 1 }) => Array.from({ length: count }, () => item);

describe('BatchRequestOf', () => {
  it('turns the items into instances of the item class', async () => {
    const dto = (await pipe.transform({ items: items(MAX_BATCH_ITEMS) }, body(ItemsBatch))) as ItemsBatch;
    expect(dto).toBeInstanceOf(ItemsBatch);
    expect(dto.items).toHaveLength(100);
    expect(dto.items[0]).toBeInstanceOf(Item);
  });

  it('refuses more than the maximum with BATCH_SIZE_EXCEEDED before validating any element', async () => {
    const error = await failureOf({ items: items(101, { quantity: 'x', extra: true }) });
    expect(error.code).toBe('BATCH_SIZE_EXCEEDED');
    expect(error.options).toEqual({ args: { max: 100, count: 101 } });
  });

  it('takes its own maximum', async () => {
    await expect(pipe.transform({ items: items(2) }, body(SmallBatch))).resolves.toBeInstanceOf(SmallBatch);
    expect((await failureOf({ items: items(3) }, SmallBatch)).options.args).toEqual({ max: 2, count: 3 });
  });

  it.each([
    ['an empty list', { items: [] }, [{ field: 'items', code: 'MIN_ITEMS', args: { min: 1 } }]],
    ['no items', {}, [{ field: 'items', code: 'REQUIRED' }]],
    ['a non-list', { items: 'x' }, [{ field: 'items', code: 'INVALID_TYPE', args: { type: 'array' } }]],
    [
      'malformed elements',
      { items: [{ quantity: 1 }, { quantity: 0 }, 7] },
      [
        { field: 'items[1].quantity', code: 'MIN', args: { min: 1 } },
        { field: 'items[2]', code: 'INVALID_TYPE', args: { type: 'object' } },
      ],
    ],
  ])('refuses %s with VALIDATION_ERROR', async (_name, value, violations) => {
    const error = await failureOf(value);
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.options.violations).toEqual(violations);
  });
});
