import type { DataSource } from 'typeorm';
import { prepared, PooledStatements, StatementVariants } from './pooled-statements';

function reads(query: jest.Mock, maxQueryExecutionTime = 2_000) {
  const logger = { logQuerySlow: jest.fn(), logQueryError: jest.fn() };
  const dataSource = {
    driver: { master: { query } },
    options: { maxQueryExecutionTime },
    logger,
  } as unknown as DataSource;
  return { reads: new PooledStatements(dataSource), logger };
}

describe('PooledStatements', () => {
  it('runs a prepared statement by its name and text, with the values, and returns the rows', async () => {
    const query = jest.fn().mockResolvedValue({ rows: [{ n: 1 }] });
    const { reads: pooled } = reads(query);
    await expect(pooled.rows(prepared('t.read', 'SELECT $1::int AS n'), [1])).resolves.toEqual([{ n: 1 }]);
    expect(query).toHaveBeenCalledWith({ name: 't.read', text: 'SELECT $1::int AS n', values: [1] });
  });

  it('runs a text built per request unnamed (never prepared on the connection)', async () => {
    const query = jest.fn().mockResolvedValue({ rows: [] });
    await reads(query).reads.rows('SELECT 1', []);
    expect(query).toHaveBeenCalledWith({ text: 'SELECT 1', values: [] });
  });

  it('logs a failed statement as TypeORM does (statement text, never the values) and rethrows it', async () => {
    const failure = Object.assign(new Error('relation "x" does not exist'), { code: '42P01' });
    const { reads: pooled, logger } = reads(jest.fn().mockRejectedValue(failure));
    await expect(pooled.rows('SELECT * FROM x WHERE a = $1', ['secret'])).rejects.toBe(failure);
    expect(logger.logQueryError).toHaveBeenCalledWith(failure, 'SELECT * FROM x WHERE a = $1', ['secret']);
  });

  it('warns of a statement slower than maxQueryExecutionTime', async () => {
    const slow = jest
      .fn()
      .mockImplementation(() => new Promise((r) => setTimeout(() => r({ rows: [] }), 30)));
    const { reads: pooled, logger } = reads(slow, 10);
    await pooled.rows('SELECT pg_sleep(1)', []);
    expect(logger.logQuerySlow).toHaveBeenCalledWith(expect.any(Number), 'SELECT pg_sleep(1)');
    const fast = reads(jest.fn().mockResolvedValue({ rows: [] }), 1_000);
    await fast.reads.rows('SELECT 1', []);
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
