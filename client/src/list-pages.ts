import { callFailure, throwIfAborted } from './call-errors.js';
import { sleep } from './sleep.js';

/** A page of a cursor-paged list, as the service answers it (the orders' cursor page, the event feed). */
export interface CursorPage<Item> {
  content: Item[];
  /** Where the next page starts; absent when there is none (the feed always gives one, to resume from). */
  nextCursor?: string;
  hasNext: boolean;
}

/** How a walk that follows a list's end polls for more: a wait that doubles while nothing comes. */
export interface FollowOptions {
  /** The first wait after reaching the end, in milliseconds (default 500). */
  intervalMs?: number;
  /** The longest wait (default 10 000); back to `intervalMs` as soon as a page brings something. */
  maxIntervalMs?: number;
}

export interface CursorItemsOptions {
  /**
   * At the end of the list, keep asking for what comes after it instead of stopping, waiting between asks
   * (`FollowOptions`): for a list that grows at its end and gives a cursor to resume from (the event feed).
   */
  follow?: boolean | FollowOptions;
  /** The cursor to start at (one a page gave earlier); the first page without one. */
  cursor?: string;
  /** Told the cursor to resume from once a page's items have all been consumed (to store it). */
  onCursor?: (cursor: string) => void;
  /** Stops the iteration, also while it waits to follow: the loop then throws an `AbortError`. */
  signal?: AbortSignal;
}

/**
 * Every item of a cursor-paged list, page after page: `fetchPage(cursor)` gets the page at `cursor`
 * (undefined for the first one, unless `options.cursor` names where to start) and throws when it cannot; a list
 * of the service that pages both ways starts cursor paging with an empty cursor, so ask it for `cursor ?? ''`.
 * The next page is fetched only once the items of this one have been consumed, so breaking out of a
 * `for await` fetches nothing more.
 */
export async function* cursorItems<Item>(
  fetchPage: (cursor: string | undefined) => Promise<CursorPage<Item>>,
  options: CursorItemsOptions = {},
): AsyncGenerator<Item, void, undefined> {
  const follow = typeof options.follow === 'object' ? options.follow : {};
  const firstWaitMs = follow.intervalMs ?? 500;
  const longestWaitMs = Math.max(firstWaitMs, follow.maxIntervalMs ?? 10_000);
  let waitMs = firstWaitMs;
  let cursor = options.cursor;
  for (;;) {
    throwIfAborted(options.signal);
    const page = await fetchPage(cursor);
    yield* page.content;
    if (page.nextCursor !== undefined) options.onCursor?.(page.nextCursor);
    if (page.nextCursor === undefined || (!page.hasNext && !options.follow)) return;
    cursor = page.nextCursor;
    if (page.content.length > 0) waitMs = firstWaitMs;
    if (!page.hasNext) {
      await sleep(waitMs, options.signal).catch((error: unknown) => {
        throw callFailure(error, options.signal);
      });
      if (page.content.length === 0) waitMs = Math.min(waitMs * 2, longestWaitMs);
    }
  }
}

/** A page of an offset-paged list, as the service answers it. */
export interface OffsetPage<Item> {
  content: Item[];
  page: number;
  totalPages: number;
}

/**
 * Every item of an offset-paged list, page after page from the first: `fetchPage(page)` gets page `page`
 * (from 1) and throws when it cannot. As with `cursorItems`, a page is fetched only once the loop reaches it.
 * An item added or removed meanwhile can shift the pages (a cursor-paged list has no such gap).
 */
export async function* offsetItems<Item>(
  fetchPage: (page: number) => Promise<OffsetPage<Item>>,
  options: { signal?: AbortSignal } = {},
): AsyncGenerator<Item, void, undefined> {
  for (let page = 1; ; page++) {
    throwIfAborted(options.signal);
    const answer = await fetchPage(page);
    yield* answer.content;
    if (answer.page >= answer.totalPages || answer.content.length === 0) return;
  }
}
