import type { Tx } from '../database/transactions';
import { settleInSavepoints } from './batch-savepoints';

/** A transaction whose savepoints are counted. */
function fakeManager() {
  const manager = {
    savepoints: 0,
    savepoint: async <T>(work: (savepoint: Tx) => Promise<T>): Promise<T> => {
      manager.savepoints += 1;
      return work(manager as unknown as Tx);
    },
  };
  return manager;
}

const refusesBad = async (_savepoint: Tx, items: string[]): Promise<string[]> => {
  if (items.includes('bad')) throw new Error('refused by the database');
  return items.map((item) => `id-${item}`);
};

describe('settleInSavepoints', () => {
  it('writes all items in one savepoint when the database takes them', async () => {
    const manager = fakeManager();
    const write = jest.fn(refusesBad);
    const outcomes = await settleInSavepoints(
      manager as unknown as Tx,
      [
        { index: 0, item: 'a' },
        { index: 2, item: 'b' },
      ],
      write,
    );
    expect(outcomes).toEqual([
      { index: 0, ok: true, value: 'id-a' },
      { index: 2, ok: true, value: 'id-b' },
    ]);
    expect(write).toHaveBeenCalledTimes(1);
    expect(manager.savepoints).toBe(1);
  });

  it('writes item by item in savepoints when the database refuses them together: only the culprit fails', async () => {
    const manager = fakeManager();
    const write = jest.fn(refusesBad);
    const outcomes = await settleInSavepoints(
      manager as unknown as Tx,
      [
        { index: 1, item: 'a' },
        { index: 3, item: 'bad' },
        { index: 4, item: 'c' },
      ],
      write,
    );
    expect(outcomes).toEqual([
      { index: 1, ok: true, value: 'id-a' },
      { index: 3, ok: false, failure: new Error('refused by the database') },
      { index: 4, ok: true, value: 'id-c' },
    ]);
    expect(write.mock.calls.map(([, items]) => items)).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
    expect(manager.savepoints).toBe(4);
  });

  it('does nothing for no items', async () => {
    const manager = fakeManager();
    expect(await settleInSavepoints(manager as unknown as Tx, [], refusesBad)).toEqual([]);
    expect(manager.savepoints).toBe(0);
  });
});
