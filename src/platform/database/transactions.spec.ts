import { Logger } from 'typeorm';
import type { DatabasePool } from './database-pool';
import { read } from './sql-statement';
import { StatementRunner } from './statement-runner';
import { Transactions, type Tx } from './transactions';

/** A pool whose connections log what they do: `connect`, the statements they run, and `release`. */
function recordingPool() {
  const log: string[] = [];
  let connections = 0;
  const pool = {
    connect: () => {
      const id = ++connections;
      log.push(`${id} connect`);
      return Promise.resolve({
        id,
        query: (query: string | { text: string }) => {
          const text = typeof query === 'string' ? query : query.text;
          log.push(`${id} ${text.toLowerCase()}`);
          return Promise.resolve({ rows: [{ connection: id }], rowCount: 1 });
        },
        on: () => undefined,
        removeListener: () => undefined,
        release: (error?: Error) => log.push(`${id} release${error ? ' (dropped)' : ''}`),
      });
    },
  };
  const runner = new StatementRunner({} as Logger, Number.POSITIVE_INFINITY, true);
  return { transactions: new Transactions({ pool } as unknown as DatabasePool, runner), log };
}

const WHICH = read('SELECT 1');
const connectionOf = async (tx: Tx) => (await tx.rows<{ connection: number }>(WHICH))[0].connection;

describe('Transactions', () => {
  it('outside a unit of work: a transaction of its own per run, after-commit work after its commit', async () => {
    const { transactions, log } = recordingPool();
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
    const { transactions, log } = recordingPool();
    const unit = transactions.unitOfWork();
    const connections = await transactions.within(unit, async () => {
      const first = await transactions.run(connectionOf);
      // A nested run joins too; runAlone does not.
      const nested = await transactions.run(() => transactions.run(connectionOf));
      const alone = await transactions.runAlone(connectionOf);
      await transactions.afterCommit(() => log.push('after commit'));
      return [first, nested, alone];
    });
    expect(connections).toEqual([1, 1, 2]);
    expect(unit.open).toBe(true);
    await unit.commit(() => Promise.resolve(void log.push('outcome')));
    expect(log.filter((line) => !line.startsWith('2 '))).toEqual([
      '1 connect',
      '1 begin',
      '1 select 1',
      '1 select 1',
      'outcome',
      '1 commit',
      '1 release',
    ]);
    expect(log.filter((line) => line.startsWith('2 '))).toEqual([
      '2 connect',
      '2 begin',
      '2 select 1',
      '2 commit',
      '2 release',
    ]);
    await unit.runAfterCommit();
    expect(log.at(-1)).toBe('after commit');
    expect(unit.open).toBe(false);
  });

  it('a savepoint undoes its own work alone', async () => {
    const { transactions, log } = recordingPool();
    await transactions.run(async (tx) => {
      await expect(tx.savepoint(() => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
      await tx.savepoint(connectionOf);
    });
    expect(log).toEqual([
      '1 connect',
      '1 begin',
      '1 savepoint savepoint_1',
      '1 rollback to savepoint savepoint_1',
      '1 savepoint savepoint_2',
      '1 select 1',
      '1 release savepoint savepoint_2',
      '1 commit',
      '1 release',
    ]);
  });

  it('a unit of work whose work failed rolls back at once, drops its after-commit work and cannot commit', async () => {
    const { transactions, log } = recordingPool();
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

  it('work left running in the scope of a closed unit runs on its own', async () => {
    const { transactions, log } = recordingPool();
    const unit = transactions.unitOfWork();
    const later = await transactions.within(unit, async () => {
      await transactions.run(connectionOf);
      await unit.commit();
      return () => transactions.run(connectionOf);
    });
    expect(await transactions.within(unit, later)).toBe(2);
    expect(log.slice(-4)).toEqual(['2 connect', '2 begin', '2 select 1', '2 commit', '2 release'].slice(-4));
  });

  it('a unit of work that nothing joined opens no transaction', async () => {
    const { transactions, log } = recordingPool();
    const unit = transactions.unitOfWork();
    expect(unit.open).toBe(false);
    await unit.rollback();
    expect(log).toEqual([]);
  });
});
