import type { DataSource, QueryRunner } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { TransactionSettings, transactionSettingsSql } from './transaction-settings';

const limits = { statementTimeoutMs: 15_000, idleInTransactionTimeoutMs: 2_000 };

/** A transaction's events as TypeORM sends them, on a runner that records its statements. */
function transactions() {
  const dataSource = { subscribers: [] as unknown[] } as unknown as DataSource;
  const settings = new TransactionSettings(dataSource, { database: { limits } } as AppConfig);
  const sent: string[] = [];
  const runner = {
    isTransactionActive: false,
    query: (sql: string) => Promise.resolve(sent.push(sql)),
  } as unknown as QueryRunner & { isTransactionActive: boolean };
  let depth = 0;
  return {
    dataSource,
    settings,
    sent,
    start: async () => {
      depth += 1;
      runner.isTransactionActive = true;
      await settings.afterTransactionStart({ queryRunner: runner } as never);
    },
    end: (outcome: 'commit' | 'rollback') => {
      depth -= 1;
      runner.isTransactionActive = depth > 0;
      if (outcome === 'commit') settings.afterTransactionCommit({ queryRunner: runner } as never);
      else settings.afterTransactionRollback({ queryRunner: runner } as never);
    },
  };
}

describe('TransactionSettings', () => {
  it('are the limits and jit, set for the transaction only', () => {
    expect(transactionSettingsSql(limits)).toBe(
      'SET LOCAL statement_timeout = 15000; SET LOCAL idle_in_transaction_session_timeout = 2000; ' +
        'SET LOCAL jit = off',
    );
  });

  it('registers itself with the DataSource', () => {
    const { dataSource, settings } = transactions();
    expect(dataSource.subscribers).toEqual([settings]);
  });

  it('are sent once per transaction: a savepoint inherits them, the next transaction sets them again', async () => {
    const tx = transactions();
    await tx.start();
    await tx.start(); // a savepoint
    tx.end('rollback');
    await tx.start(); // another savepoint
    tx.end('commit');
    tx.end('commit');
    expect(tx.sent).toEqual([tx.settings.sql]);
    await tx.start();
    tx.end('rollback');
    expect(tx.sent).toEqual([tx.settings.sql, tx.settings.sql]);
  });
});
