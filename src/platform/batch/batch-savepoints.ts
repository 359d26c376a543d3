import type { Tx } from '../database/transactions';
import { BatchOutcome, settleEach, succeeded } from './batch-outcome';

/** An item of a batch on its way to the database, with its position in the request. */
export interface IndexedItem<I> {
  index: number;
  item: I;
}

/**
 * Writes the items of a partial-success batch inside the caller's transaction `tx` so that an item the database
 * refuses fails alone. `writeAll` writes the items it is given with as few
 * statements as it can and resolves to one value per item, in order.
 *
 * First all items go in one savepoint, in one call: the common case costs a few round trips and one
 * subtransaction, not three round trips and a subtransaction per item. A statement fails as a whole, so if
 * the database refuses it, that savepoint is rolled back and every item is written again in a savepoint of
 * its own: only the items at fault fail, and their errors become their outcomes.
 */
export async function settleInSavepoints<I, T>(
  tx: Tx,
  items: ReadonlyArray<IndexedItem<I>>,
  writeAll: (savepoint: Tx, items: I[]) => Promise<T[]>,
): Promise<Array<BatchOutcome<T>>> {
  if (items.length === 0) return [];
  try {
    const values = await tx.savepoint((savepoint) =>
      writeAll(
        savepoint,
        items.map(({ item }) => item),
      ),
    );
    return items.map(({ index }, position) => succeeded(index, values[position]));
  } catch {
    // The item at fault shows its error below, where it is written alone.
  }
  const outcomes = await settleEach(items, async ({ item }) => {
    const [value] = await tx.savepoint((savepoint) => writeAll(savepoint, [item]));
    return value;
  });
  // settleEach numbers outcomes by position in `items`; the batch knows them by request index.
  return outcomes.map((outcome, position) => ({ ...outcome, index: items[position].index }));
}
