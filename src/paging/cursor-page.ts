/** The cursor page of the contract (Pages): no totals, no page jumps; absent cursors are omitted. */
export interface CursorPage<T> {
  content: T[];
  size: number;
  nextCursor?: string;
  prevCursor?: string;
  hasNext: boolean;
  hasPrev: boolean;
}
