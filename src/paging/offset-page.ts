import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { QueryNumber } from '../validation/query-number.decorator';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** `page` (first is 1) and `size` (1–100) of every offset-paged list (contract, List query parameters). */
export class OffsetPageQuery {
  @ApiPropertyOptional({ minimum: 1, default: 1, description: 'Page number, first is 1.' })
  @QueryNumber()
  @IsInt()
  @Min(1)
  page: number = 1;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })
  @QueryNumber()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  size: number = DEFAULT_PAGE_SIZE;
}

/** The offset page of the contract (Pages). */
export interface OffsetPage<T> {
  content: T[];
  page: number;
  size: number;
  totalElements: number;
  totalPages: number;
}

export function offsetPage<T>(
  content: T[],
  totalElements: number,
  query: { page: number; size: number },
): OffsetPage<T> {
  return {
    content,
    page: query.page,
    size: query.size,
    totalElements,
    totalPages: Math.ceil(totalElements / query.size),
  };
}

export function offsetOf(query: { page: number; size: number }): number {
  return (query.page - 1) * query.size;
}
