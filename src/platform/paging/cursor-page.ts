/** A cursor page: no totals, no page jumps; absent cursors are omitted. */
export interface CursorPage<T> {
  content: T[];
  size: number;
  nextCursor?: string;
  prevCursor?: string;
  hasNext: boolean;
  hasPrev: boolean;
}

/**
 * A cursor page as JSON text in three parts around content that is JSON text already (an array rendered
 * elsewhere, e.g. by PostgreSQL): the bytes the JSON output rules make of the page, absent cursors left out.
 */
export function cursorPageJson(
  contentJson: string,
  page: Omit<CursorPage<unknown>, 'content'>,
): [string, string, string] {
  const fields = {
    size: page.size,
    hasNext: page.hasNext,
    hasPrev: page.hasPrev,
    nextCursor: page.nextCursor,
    prevCursor: page.prevCursor,
  };
  return ['{"content":', contentJson, `,${JSON.stringify(fields).slice(1)}`];
}
