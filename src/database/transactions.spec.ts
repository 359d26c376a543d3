import type { DataSource, EntityManager } from 'typeorm';
import type { TransactionSettings } from './transaction-settings';
import { Transactions } from './transactions';

/**
 * A DataSource whose query runners log what they do: `connect`, then the statements their connection runs
 * (`begin`, `commit`, `rollback`), and `release`.
 */
function recordingDataSource() {
  const log: string[] = [];
  let runners = 0;
  const dataSource = {
    createQueryRunner: () => {
      const id = ++runners;
      let connected = false;
      const connection = {
        query: (text: string) => Promise.resolve(log.push(`${id} ${text.split(';')[0].toLowerCase()}`)),
      };
      return {
        isTransactionActive: false,
        manager: { runner: id } as unknown as EntityManager,
        connect: () => {
          if (!connected) log.push(`${id} connect`);
          connected = true;
          return Promise.resolve(connection);
        },
        release: () => Promise.resolve(log.push(`${id} release`)),
      };
    },
  } as unknown as DataSource;
  const settings = { sql: 'SET LOCAL jit = off', adopt: () => undefined } as unknown as TransactionSettings;
  return { transactions: new Transactions(dataSource, settings), log };
}

const runnerOf = (db: EntityManager) => (db as unknown as { runner: number }).runner;

describe('Transactions', () => {
  it('outside a unit of work: a transaction of its own per run, after-commit work after its commit', async () => {
    const { transactions, log } = recordingDataSource();
    await transactions.run(async () => {
      await transactions.afterCommit(() => log.push('after commit'));
    });
    await expect(transactions.run(() => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect(log).toEqual([
      '1 connect',
      '1 begin',
      '1 commit',
      '1 release',
      'after commit',
      '2 connect',
      '2 begin',
      '2 rollback',
      '2 release',
    ]);
    // Not in a transaction: nothing to wait for.
    await transactions.afterCommit(() => log.push('at once'));
    expect(log.at(-1)).toBe('at once');
  });

  it('in a unit of work: every run joins its one transaction, which commits with its last work', async () => {
    const { transactions, log } = recordingDataSource();
    const unit = transactions.unitOfWork();
    const managers = await transactions.within(unit, async () => {
      const first = await transactions.run((db) => Promise.resolve(runnerOf(db)));
      // A nested run joins too.
      const nested = await transactions.run(() => transactions.run((db) => Promise.resolve(runnerOf(db))));
      await transactions.afterCommit(() => log.push('after commit'));
      return [first, nested];
    });
    expect(managers).toEqual([1, 1]);
    expect(unit.open).toBe(true);
    await unit.commit(() => Promise.resolve(void log.push('outcome')));
    expect(log).toEqual(['1 connect', '1 begin', 'outcome', '1 commit', '1 release']);
    await unit.runAfterCommit();
    expect(log.at(-1)).toBe('after commit');
    expect(unit.open).toBe(false);
  });

  it('a unit of work whose work failed rolls back at once, drops its after-commit work and cannot commit', async () => {
    const { transactions, log } = recordingDataSource();
    const unit = transactions.unitOfWork();
    await transactions.within(unit, async () => {
      await transactions.run(async () => {
        await transactions.afterCommit(() => log.push('after commit'));
      });
      await expect(transactions.run(() => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    });
    expect(unit.rollbackOnly).toBe(true);
    expect(unit.open).toBe(false);
    expect(log).toEqual(['1 connect', '1 begin', '1 rollback', '1 release']);
    await expect(unit.commit()).rejects.toThrow();
    await unit.rollback();
    await unit.runAfterCommit();
    expect(log).toEqual(['1 connect', '1 begin', '1 rollback', '1 release']);
  });

  it('a unit of work that nothing joined opens no transaction', async () => {
    const { transactions, log } = recordingDataSource();
    const unit = transactions.unitOfWork();
    expect(unit.open).toBe(false);
    await unit.rollback();
    expect(log).toEqual([]);
  });
});
