import { integer, RequestField } from '../validation/fields';
import { QueryNumber } from '../validation/query-number.decorator';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
/**
 * Deepest page offset paging serves: it keeps the offset arithmetic exact and the parameter bounded
 * (OWASP API4); a list walked further than this goes by cursor.
 */
export const MAX_PAGE = 1_000_000;

/** `page` (first is 1) and `size` (1–100) as every offset-paged list takes them. */
export const PAGE = integer({ min: 1, max: MAX_PAGE });
export const PAGE_SIZE = integer({ min: 1, max: MAX_PAGE_SIZE });

/** `page` (first is 1) and `size` (1–100) of every offset-paged list. */
export class OffsetPageQuery {
  @RequestField(PAGE, { presence: 'optional', default: 1, description: 'Page number, first is 1.' })
  @QueryNumber()
  page: number = 1;

  @RequestField(PAGE_SIZE, { presence: 'optional', default: DEFAULT_PAGE_SIZE })
  @QueryNumber()
  size: number = DEFAULT_PAGE_SIZE;
}

/** An offset page: its content, where it is, and the list's exact size. */
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

/**
 * An offset page as JSON text in three parts (to join, or to write one after the other) around content that
 * is JSON text already (an array rendered elsewhere, e.g. by PostgreSQL): the bytes
 * `JSON.stringify(offsetPage(content, …))` gives, the fields from `offsetPage` itself.
 */
export function offsetPageJson(
  contentJson: string,
  totalElements: number,
  query: { page: number; size: number },
): [string, string, string] {
  const { content: _content, ...fields } = offsetPage([], totalElements, query);
  return ['{"content":', contentJson, `,${JSON.stringify(fields).slice(1)}`];
}
