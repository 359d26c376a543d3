import type { QueryConfig } from 'pg';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { prepared, PooledStatements, StatementVariants } from './pooled-statements';
import type { TransactionSettings } from './transaction-settings';

const SETTINGS = { sql: 'SET LOCAL statement_timeout = 15000' } as TransactionSettings;

/**
 * A pool whose one client answers `BEGIN …` and `COMMIT` itself and the statement with `statement`;
 * `sent` records what the client was given, `released` how it went back to the pool.
 */
function pooled(
  statement: (query: QueryConfig) => Promise<unknown>,
  { maxQueryExecutionTime = 2_000, preparedStatements = true, commit = () => Promise.resolve({}) } = {},
) {
  const sent: unknown[] = [];
  const release = jest.fn();
  const client = {
    query: (query: string | QueryConfig) => {
      sent.push(query);
      if (typeof query !== 'string') return statement(query);
      return query === 'COMMIT' ? commit() : Promise.resolve([{}, {}]);
    },
    release,
    on: jest.fn(),
    removeListener: jest.fn(),
  };
  const logger = { logQuerySlow: jest.fn(), logQueryError: jest.fn() };
  const dataSource = {
    driver: { master: { connect: () => Promise.resolve(client) } },
    options: { maxQueryExecutionTime },
    logger,
  } as unknown as DataSource;
  const config = { database: { preparedStatements } } as AppConfig;
  return { statements: new PooledStatements(dataSource, SETTINGS, config), logger, sent, release };
}

describe('PooledStatements', () => {
  it('runs a prepared statement by its name and text in a transaction of its own with the settings', async () => {
    const { statements, sent, release } = pooled(() => Promise.resolve({ rows: [{ n: 1 }], rowCount: 1 }));
    await expect(statements.rows(prepared('t.read', 'SELECT $1::int AS n'), [1])).resolves.toEqual([
      { n: 1 },
    ]);
    expect(sent).toEqual([
      'BEGIN; SET LOCAL statement_timeout = 15000',
      { name: 't.read', text: 'SELECT $1::int AS n', values: [1] },
      'COMMIT',
    ]);
    expect(release).toHaveBeenCalledWith(undefined);
  });

  it('runs a text built per request unnamed (never prepared on the connection)', async () => {
    const { statements, sent } = pooled(() => Promise.resolve({ rows: [], rowCount: 0 }));
    await statements.rows('SELECT 1', []);
    expect(sent[1]).toEqual({ text: 'SELECT 1', values: [] });
  });

  it('runs every statement unnamed with DB_PREPARED_STATEMENTS=false', async () => {
    const { statements, sent } = pooled(() => Promise.resolve({ rows: [], rowCount: 0 }), {
      preparedStatements: false,
    });
    await statements.rows(prepared('t.read', 'SELECT 1'), []);
    expect(sent[1]).toEqual({ text: 'SELECT 1', values: [] });
  });

  it('answers a write with the number of rows it wrote', async () => {
    const { statements } = pooled(() => Promise.resolve({ rows: [], rowCount: 3 }));
    await expect(statements.rowCount('DELETE FROM x', [])).resolves.toBe(3);
  });

  it('logs a failed statement as TypeORM does (statement text, never the values) and rethrows it', async () => {
    const failure = Object.assign(new Error('relation "x" does not exist'), { code: '42P01' });
    const { statements, logger, sent, release } = pooled(() => Promise.reject(failure));
    await expect(statements.rows('SELECT * FROM x WHERE a = $1', ['secret'])).rejects.toBe(failure);
    expect(logger.logQueryError).toHaveBeenCalledWith(failure, 'SELECT * FROM x WHERE a = $1', ['secret']);
    // The COMMIT that follows ends the failed transaction (as a rollback): the connection is fine to reuse.
    expect(sent[2]).toBe('COMMIT');
    expect(release).toHaveBeenCalledWith(undefined);
  });

  it('fails, and drops the connection, when the statement ran but its transaction did not commit', async () => {
    const failure = Object.assign(new Error('could not serialize access'), { code: '40001' });
    const { statements, release } = pooled(() => Promise.resolve({ rows: [{ n: 1 }], rowCount: 1 }), {
      commit: () => Promise.reject(failure),
    });
    await expect(statements.rows('SELECT 1', [])).rejects.toBe(failure);
    expect(release).toHaveBeenCalledWith(failure);
  });

  it('warns of a statement slower than maxQueryExecutionTime', async () => {
    const slow = pooled(() => new Promise((r) => setTimeout(() => r({ rows: [] }), 30)), {
      maxQueryExecutionTime: 10,
    });
    await slow.statements.rows('SELECT pg_sleep(1)', []);
    expect(slow.logger.logQuerySlow).toHaveBeenCalledWith(expect.any(Number), 'SELECT pg_sleep(1)');
    const fast = pooled(() => Promise.resolve({ rows: [] }), { maxQueryExecutionTime: 1_000 });
    await fast.statements.rows('SELECT 1', []);
    expect(fast.logger.logQuerySlow).not.toHaveBeenCalled();
  });
});
describe('StatementVariants', () => {
  it('names each distinct text once, the same name for the same text', () => {
    const variants = new StatementVariants('orders.page', 3);
    const first = variants.of('SELECT 1');
    expect(first).toEqual({ name: 'orders.page.0', text: 'SELECT 1' });
    expect(variants.of('SELECT 2')).toEqual({ name: 'orders.page.1', text: 'SELECT 2' });
    expect(variants.of('SELECT 1')).toBe(first);
  });

  it('runs texts beyond its limit unnamed, so rare variants never stay prepared on the connections', () => {
    const variants = new StatementVariants('orders.page', 2);
    variants.of('SELECT 1');
    variants.of('SELECT 2');
    expect(variants.of('SELECT 3')).toBe('SELECT 3');
    expect(variants.of('SELECT 3')).toBe('SELECT 3');
    expect(variants.of('SELECT 2')).toEqual({ name: 'orders.page.1', text: 'SELECT 2' });
  });
});
