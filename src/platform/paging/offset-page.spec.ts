import { offsetPage, offsetPageJson } from './offset-page';

describe('offsetPageJson', () => {
  it('joins to the bytes of the offset page it stands for, whatever the content', () => {
    const content = [{ orderId: 'a', note: 'ü "q"' }, { orderId: 'b' }];
    for (const [total, query] of [
      [2, { page: 1, size: 20 }],
      [0, { page: 1, size: 20 }],
      [41, { page: 3, size: 20 }],
      [5, { page: 9, size: 2 }],
    ] as const) {
      const items = total === 0 ? [] : content;
      expect(offsetPageJson(JSON.stringify(items), total, query).join('')).toBe(
        JSON.stringify(offsetPage(items, total, query)),
      );
    }
  });

  it('keeps the content text as given, as its own part', () => {
    const [opening, content, rest] = offsetPageJson('[{"x":1}]', 1, { page: 1, size: 1 });
    expect([opening, content, rest]).toEqual([
      '{"content":',
      '[{"x":1}]',
      ',"page":1,"size":1,"totalElements":1,"totalPages":1}',
    ]);
  });
});
