import { Type } from '@nestjs/common';
import { boolean, FieldKind, integer, listOf, nested, patterned, ResponseField } from '../validation/fields';
import { MAX_PAGE_SIZE, PAGE, PAGE_SIZE } from './offset-page';

/** Counts of rows and pages: a JSON number carries them exactly up to 2^53 − 1. */
const COUNT = integer({ min: 0, max: Number.MAX_SAFE_INTEGER });

/** Longest cursor a client may pass back; the ones the service issues are far shorter. */
export const MAX_CURSOR_LENGTH = 2000;
/**
 * A cursor as the service issues it (cursor-codec.ts): base64url payload, a dot, base64url signature. Any
 * other value is refused as INVALID_CURSOR when it is decoded.
 */
export const CURSOR = patterned({
  pattern: /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/,
  max: MAX_CURSOR_LENGTH,
  format: 'cursor',
});

/** A page's items: of a response class, or of a schema declared by name (a union: `declareSchema`). */
export type PageItem<T> = Type<T> | { $ref: string };

/** The `content` of a page of `item`. */
export function pageContent<T>(item: PageItem<T>): FieldKind {
  if (typeof item === 'function') return listOf(nested(item), { max: MAX_PAGE_SIZE });
  return {
    schema: { type: 'array', items: item, maxItems: MAX_PAGE_SIZE } as FieldKind['schema'],
    constraints: () => [],
  };
}

/**
 * The OpenAPI schema of an offset page of `item`, named `<name>` in the document.
 * One definition for every paged list, so the page shape cannot drift between resources.
 */
export function OffsetPageResponse<T>(item: PageItem<T>, name: string): Type<{ content: T[] }> {
  class Page {
    @ResponseField(pageContent(item))
    content: T[];

    @ResponseField(PAGE, { description: 'First page is 1.' })
    page: number;

    @ResponseField(PAGE_SIZE)
    size: number;

    @ResponseField(COUNT)
    totalElements: number;

    @ResponseField(COUNT)
    totalPages: number;
  }
  Object.defineProperty(Page, 'name', { value: name });
  return Page;
}

/** The OpenAPI schema of a cursor page of `item`, named `<name>` in the document. */
export function CursorPageResponse<T>(item: Type<T>, name: string): Type<{ content: T[] }> {
  class Page {
    @ResponseField(listOf(nested(item), { max: MAX_PAGE_SIZE }))
    content: T[];

    @ResponseField(PAGE_SIZE)
    size: number;

    @ResponseField(CURSOR, { optional: true, description: 'Opaque; absent when there is no next chunk.' })
    nextCursor?: string;

    @ResponseField(CURSOR, { optional: true, description: 'Opaque; absent when there is no previous chunk.' })
    prevCursor?: string;

    @ResponseField(boolean())
    hasNext: boolean;

    @ResponseField(boolean())
    hasPrev: boolean;
  }
  Object.defineProperty(Page, 'name', { value: name });
  return Page;
}
