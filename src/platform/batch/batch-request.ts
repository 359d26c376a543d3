import type { Type as ClassType } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ArrayMinSize, IsArray, IsDefined, ValidateNested } from 'class-validator';
import { AppException } from '../problem/app-exception';

/** Items per batch request, on every batch operation. */
export const MAX_BATCH_ITEMS = 100;

/** The body of every batch operation: `{ items: [...] }`. */
export interface BatchRequest<T> {
  items: T[];
}

/**
 * An over-long batch is refused as a whole with 400 BATCH_SIZE_EXCEEDED, not as a violation: it runs while
 * the body is turned into the DTO, so no element is validated and no item is processed.
 */
function limitedTo(maxItems: number) {
  return ({ value }: { value: unknown }): unknown => {
    if (Array.isArray(value) && value.length > maxItems) {
      throw new AppException('BATCH_SIZE_EXCEEDED', { args: { max: maxItems, count: value.length } });
    }
    return value;
  };
}

/**
 * The request DTO of a batch operation over items of `itemType`: `items` is required, holds 1 to
 * `maxItems` elements, each validated as `itemType` (violations name `items[i].<field>`). Extend it to
 * give the body its own name in the OpenAPI document:
 *
 *   export class CreateOrdersBatchRequest extends BatchRequestOf(CreateOrderItemDto) {}
 *
 * More than `maxItems` elements: 400 BATCH_SIZE_EXCEEDED before any element is validated; none, or a
 * malformed element: 400 VALIDATION_ERROR for the whole request.
 */
export function BatchRequestOf<T extends object>(
  itemType: ClassType<T>,
  maxItems: number = MAX_BATCH_ITEMS,
): ClassType<BatchRequest<T>> {
  class BatchRequestBody implements BatchRequest<T> {
    @ApiProperty({
      type: [itemType],
      minItems: 1,
      maxItems,
      description: `1 to ${maxItems} items; more is 400 BATCH_SIZE_EXCEEDED.`,
    })
    // class-transformer applies @Transform after the elements are converted, validation comes after both.
    @Transform(limitedTo(maxItems), { toClassOnly: true })
    @IsDefined()
    @IsArray()
    @ArrayMinSize(1)
    @ValidateNested({ each: true })
    @Type(() => itemType)
    items: T[];
  }
  return BatchRequestBody;
}
