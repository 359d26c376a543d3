import { read, replicaRead, StatementVariants, write } from './sql-statement';

describe('statements', () => {
  it.each([
    'INSERT INTO t VALUES (1)',
    'WITH x AS (UPDATE t SET a = 1 RETURNING *) SELECT * FROM x',
    'DELETE FROM t',
    'SELECT * FROM t FOR UPDATE',
    'SELECT * FROM t FOR NO KEY UPDATE SKIP LOCKED',
    'SELECT * FROM t FOR SHARE',
    "SELECT nextval('s')",
    'SELECT pg_advisory_xact_lock(1)',
  ])('a text that writes or locks cannot be declared a read: %s', (text) => {
    expect(() => read(text)).toThrow('write()');
    expect(write(text).text).toBe(text);
  });

  it('reads keep their name; words that only contain a verb are no write', () => {
    expect(read('SELECT updated_at, created_at FROM t', 'x.read')).toEqual({
      text: 'SELECT updated_at, created_at FROM t',
      name: 'x.read',
    });
  });

  it('names the first variants of a family and runs the rest unnamed', () => {
    const variants = new StatementVariants('list', 2);
    expect(variants.of('SELECT 1').name).toBe('list.0');
    expect(variants.of('SELECT 2').name).toBe('list.1');
    expect(variants.of('SELECT 1').name).toBe('list.0');
    expect(variants.of('SELECT 3')).toEqual({ text: 'SELECT 3' });
  });

  it('a replica read is a read a replica may serve; it cannot write either', () => {
    expect(replicaRead('SELECT 1', 'x.list')).toEqual({ text: 'SELECT 1', name: 'x.list', replica: true });
    expect(read('SELECT 1').replica).toBeUndefined();
    expect(() => replicaRead('SELECT * FROM t FOR UPDATE')).toThrow('write()');
    const variants = new StatementVariants('list', 1, replicaRead);
    expect(variants.of('SELECT 1')).toEqual({ text: 'SELECT 1', name: 'list.0', replica: true });
    expect(variants.of('SELECT 2')).toEqual({ text: 'SELECT 2', replica: true });
  });
});
