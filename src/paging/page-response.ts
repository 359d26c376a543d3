import { Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_PAGE_SIZE } from './offset-page';

/**
 * The OpenAPI schema of an offset page of `item` (contract, Pages), named `<name>` in the document.
 * One definition for every paged list, so the page shape cannot drift between resources.
 */
export function OffsetPageResponse<T>(item: Type<T>, name: string): Type<{ content: T[] }> {
  class Page {
    @ApiProperty({ type: [item] })
    content: T[];

    @ApiProperty({ type: 'integer', minimum: 1, description: 'First page is 1.' })
    page: number;

    @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE })
    size: number;

    @ApiProperty({ type: 'integer', minimum: 0 })
    totalElements: number;

    @ApiProperty({ type: 'integer', minimum: 0 })
    totalPages: number;
  }
  Object.defineProperty(Page, 'name', { value: name });
  return Page;
}

/** The OpenAPI schema of a cursor page of `item` (contract, Pages), named `<name>` in the document. */
export function CursorPageResponse<T>(item: Type<T>, name: string): Type<{ content: T[] }> {
  class Page {
    @ApiProperty({ type: [item] })
    content: T[];

    @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE })
    size: number;

    @ApiPropertyOptional({ description: 'Opaque; absent when there is no next chunk.' })
    nextCursor?: string;

    @ApiPropertyOptional({ description: 'Opaque; absent when there is no previous chunk.' })
    prevCursor?: string;

    @ApiProperty()
    hasNext: boolean;

    @ApiProperty()
    hasPrev: boolean;
  }
  Object.defineProperty(Page, 'name', { value: name });
  return Page;
}
