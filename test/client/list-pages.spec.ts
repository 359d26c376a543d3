import { cursorItems, type CursorPage } from '@order-service/client';

/** A list in pages: the cursors a fetch was asked for, and what it answers. */
function pagedList(pages: Record<string, CursorPage<number>>) {
  const asked: Array<string | undefined> = [];
  const fetchPage = async (cursor: string | undefined) => {
    asked.push(cursor);
    const page = pages[cursor ?? 'first'];
    if (!page) throw new Error(`no page at ${cursor}`);
    return page;
  };
  return { asked, fetchPage };
}

describe('cursorItems', () => {
  it('yields the items of every page, following nextCursor while hasNext', async () => {
    const list = pagedList({
      first: { content: [1, 2], nextCursor: 'p2', hasNext: true },
      p2: { content: [], nextCursor: 'p3', hasNext: true },
      p3: { content: [3], hasNext: false },
    });
    const items: number[] = [];
    for await (const item of cursorItems(list.fetchPage)) items.push(item);
    expect(items).toEqual([1, 2, 3]);
    expect(list.asked).toEqual([undefined, 'p2', 'p3']);
  });

  it('stops at hasNext: false even when the page gives a cursor to resume from', async () => {
    const list = pagedList({ first: { content: [1], nextCursor: 'later', hasNext: false } });
    const items: number[] = [];
    for await (const item of cursorItems(list.fetchPage)) items.push(item);
    expect(items).toEqual([1]);
    expect(list.asked).toEqual([undefined]);
  });

  it('with follow, asks again from the last cursor after intervalMs, until stopped', async () => {
    const list = pagedList({
      first: { content: [1], nextCursor: 'end', hasNext: false },
      end: { content: [], nextCursor: 'end', hasNext: false },
    });
    const controller = new AbortController();
    const items: number[] = [];
    const walk = (async () => {
      for await (const item of cursorItems(list.fetchPage, {
        follow: { intervalMs: 5 },
        signal: controller.signal,
      })) {
        items.push(item);
      }
    })();
    while (list.asked.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await expect(walk).rejects.toMatchObject({ name: 'AbortError' });
    expect(items).toEqual([1]);
    expect(list.asked.slice(0, 3)).toEqual([undefined, 'end', 'end']);
  });

  it('with follow, yields what arrives after the end', async () => {
    let arrived = false;
    const fetchPage = async (cursor: string | undefined): Promise<CursorPage<number>> => {
      if (cursor === undefined) return { content: [1], nextCursor: 'c1', hasNext: false };
      if (!arrived) {
        arrived = true;
        return { content: [], nextCursor: 'c1', hasNext: false };
      }
      return { content: [2], nextCursor: 'c2', hasNext: false };
    };
    const items: number[] = [];
    for await (const item of cursorItems(fetchPage, { follow: { intervalMs: 1 } })) {
      items.push(item);
      if (items.length === 2) break;
    }
    expect(items).toEqual([1, 2]);
  });

  it('with follow, waits longer while pages stay empty, and from the start again once items come', async () => {
    const answers: Array<CursorPage<number>> = [
      { content: [1], nextCursor: 'c', hasNext: false },
      { content: [], nextCursor: 'c', hasNext: false },
      { content: [], nextCursor: 'c', hasNext: false },
      { content: [], nextCursor: 'c', hasNext: false },
      { content: [2], nextCursor: 'd', hasNext: false },
      { content: [], nextCursor: 'd', hasNext: false },
    ];
    const askedAt: number[] = [];
    const fetchPage = async () => {
      askedAt.push(Date.now());
      const answer = answers.shift();
      if (!answer) throw new Error('done');
      return answer;
    };
    const items: number[] = [];
    const walk = async () => {
      for await (const item of cursorItems(fetchPage, { follow: { intervalMs: 20, maxIntervalMs: 60 } })) {
        items.push(item);
      }
    };
    // On Jest's clock: the waits are the client's own, exactly, however busy the machine.
    jest.useFakeTimers();
    try {
      const walked = expect(walk()).rejects.toThrow('done');
      await jest.runAllTimersAsync();
      await walked;
    } finally {
      jest.useRealTimers();
    }
    expect(items).toEqual([1, 2]);
    const waits = askedAt.slice(1).map((at, i) => at - askedAt[i]);
    // 20 after the first page, then 20 (empty), 40 (empty), 60 (the cap), and 20 again after items came.
    expect(waits).toEqual([20, 20, 40, 60, 20, 20]);
  });

  it('starts at a given cursor and reports where to resume after each page', async () => {
    const list = pagedList({
      s5: { content: [6], nextCursor: 's6', hasNext: true },
      s6: { content: [7], nextCursor: 's7', hasNext: false },
    });
    const cursors: string[] = [];
    const items: number[] = [];
    for await (const item of cursorItems(list.fetchPage, {
      cursor: 's5',
      onCursor: (c) => cursors.push(c),
    })) {
      items.push(item);
    }
    expect(items).toEqual([6, 7]);
    expect(list.asked).toEqual(['s5', 's6']);
    expect(cursors).toEqual(['s6', 's7']);
  });

  it('passes on the error of a page', async () => {
    const list = pagedList({ first: { content: [1], nextCursor: 'gone', hasNext: true } });
    const items: number[] = [];
    const walk = async () => {
      for await (const item of cursorItems(list.fetchPage)) items.push(item);
    };
    await expect(walk()).rejects.toThrow('no page at gone');
    expect(items).toEqual([1]);
  });
});
