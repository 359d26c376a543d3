import { sleep } from './sleep.js';

/** A page of a cursor-paged list, as the service answers it (the orders' cursor page, the event feed). */
export interface CursorPage<Item> {
  content: Item[];
  /** Where the next page starts; absent when there is none (the feed always gives one, to resume from). */
  nextCursor?: string;
  hasNext: boolean;
}

export interface CursorItemsOptions {
  /**
   * At the end of the list, keep asking for what comes after it, every `intervalMs` (default 1000), instead
   * of stopping: for a list that grows at its end and gives a cursor to resume from (the event feed).
   */
  follow?: boolean | { intervalMs?: number };
  /** Stops the iteration, also while it waits to follow. */
  signal?: AbortSignal;
}

/**
 * Every item of a cursor-paged list, page after page: `fetchPage(cursor)` gets the page at `cursor`
 * (undefined for the first one) and throws when it cannot. The next page is fetched only once the items of
 * this one have been consumed, so breaking out of a `for await` fetches nothing more.
 */
export async function* cursorItems<Item>(
  fetchPage: (cursor: string | undefined) => Promise<CursorPage<Item>>,
  options: CursorItemsOptions = {},
): AsyncGenerator<Item, void, undefined> {
  const intervalMs = typeof options.follow === 'object' ? (options.follow.intervalMs ?? 1000) : 1000;
  let cursor: string | undefined;
  for (;;) {
    options.signal?.throwIfAborted();
    const page = await fetchPage(cursor);
    yield* page.content;
    if (page.nextCursor === undefined || (!page.hasNext && !options.follow)) return;
    cursor = page.nextCursor;
    if (!page.hasNext) await sleep(intervalMs, options.signal);
  }
}
