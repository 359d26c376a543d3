import { Type } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { MAX_PAGE_SIZE } from './offset-page';

/**
 * The OpenAPI schema of an offset page of `item` (contract, Pages), named `<name>` in the document.
 * One definition for every paged list, so the page shape cannot drift between resources.
 */
export function OffsetPageResponse<T>(item: Type<T>, name: string): Type<{ content: T[] }> {
  class Page {
    @ApiProperty({ type: [item] })
    content: T[];

    @ApiProperty({ minimum: 1, description: 'First page is 1.' })
    page: number;

    @ApiProperty({ minimum: 1, maximum: MAX_PAGE_SIZE })
    size: number;

    @ApiProperty()
    totalElements: number;

    @ApiProperty()
    totalPages: number;
  }
  Object.defineProperty(Page, 'name', { value: name });
  return Page;
}
