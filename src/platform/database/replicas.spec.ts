import type { Pool } from 'pg';
import type { DatabasePool } from './database-pool';
import { MemoryWritePositions, ReadYourWrites } from './read-your-writes';
import { nameOf, ReplicaSet, WalHistory } from './replicas';
import { Sql } from './sql';
import { read, replicaRead, write } from './sql-statement';
import { StatementRunner } from './statement-runner';
import { Transactions } from './transactions';

/** A server that answers every statement with `answer(text)`: its WAL position, or a page's rows. */
function server(name: string) {
  const state = { lsn: '100' as string | null, down: undefined as Error | undefined, ran: [] as string[] };
  const query = (config: string | { text: string }) => {
    const text = typeof config === 'string' ? config : config.text;
    if (state.down) return Promise.reject(state.down);
    state.ran.push(text);
    if (/wal_(lsn|replay_lsn)/.test(text)) return Promise.resolve({ rows: [{ lsn: state.lsn }] });
    return Promise.resolve({ rows: [{ server: name }], rowCount: 1 });
  };
  const client = { query, release: () => undefined, on: () => undefined, removeListener: () => undefined };
  const pool = {
    query,
    on: () => undefined,
    end: () => Promise.resolve(),
    connect: () => Promise.resolve(client),
  };
  return { state, pool: pool as unknown as Pool };
}

const silent = { logQuerySlow: () => undefined, logQueryError: () => undefined } as never;

function setUp(replicaCount: number, maxLagMs = 1_000) {
  const primary = server('primary');
  const replicas = Array.from({ length: replicaCount }, (_, i) => server(`replica-${i}`));
  const urls = replicas.map((_, i) => `postgres://u:secret@10.0.0.${i + 1}:5433/db`);
  const set = new ReplicaSet(urls, (url) => replicas[urls.indexOf(url)].pool, primary.pool, maxLagMs);
  const runner = new StatementRunner(silent, Number.POSITIVE_INFINITY, true);
  const readYourWrites = new ReadYourWrites(
    replicaCount > 0 ? new MemoryWritePositions(60_000) : undefined,
    runner,
  );
  const databasePool = { pool: primary.pool } as DatabasePool;
  const transactions = new Transactions(databasePool, runner, readYourWrites);
  const sql = new Sql(databasePool, runner, transactions, set, readYourWrites);
  const servedBy = async (statement = LIST) => (await sql.rows<{ server: string }>(statement))[0].server;
  return { primary, replicas, set, sql, transactions, readYourWrites, servedBy };
}

const LIST = replicaRead('SELECT * FROM orders ORDER BY created_at LIMIT 20');
const ONE = read('SELECT * FROM orders WHERE order_id = $1');
const INSERT = write('INSERT INTO orders DEFAULT VALUES');

describe('lag by WAL position', () => {
  it('a replica that replayed the newest position is not behind, however long the primary was idle', () => {
    const history = new WalHistory(10_000);
    history.add(0, 500n);
    history.add(60_000, 500n);
    expect(history.lagMs(500n)).toBe(0);
  });

  it('one that replayed an older sample only is behind by that sample’s age; behind everything kept: infinitely', () => {
    const history = new WalHistory(10_000);
    history.add(1_000, 100n);
    history.add(2_000, 200n);
    history.add(3_500, 300n);
    expect(history.lagMs(250n)).toBe(1_500);
    expect(history.lagMs(100n)).toBe(2_500);
    expect(history.lagMs(99n)).toBe(Number.POSITIVE_INFINITY);
  });

  it('keeps samples for its window only', () => {
    const history = new WalHistory(1_000);
    history.add(0, 100n);
    history.add(5_000, 200n);
    expect(history.lagMs(150n)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('replica routing', () => {
  it('a replica read goes to a replica that is up; single reads and reads in a transaction stay on the primary', async () => {
    const { set, servedBy, transactions, sql } = setUp(1);
    await set.sample();
    expect(await servedBy()).toBe('replica-0');
    expect(await servedBy(ONE)).toBe('primary');
    const inTx = await transactions.runAlone(async (tx) => {
      await tx.rowCount(INSERT);
      return (await sql.rows<{ server: string }>(LIST))[0].server;
    });
    expect(inTx).toBe('primary');
    expect(set.state()[0]).toMatchObject({ name: '10.0.0.1:5433/db', status: 'up', lagMs: 0, reads: 1 });
  });

  it('without replicas every read is the primary’s', async () => {
    const { servedBy } = setUp(0);
    expect(await servedBy()).toBe('primary');
  });

  it('replicas take turns; one further behind than the bound is skipped and taken back when it catches up', async () => {
    const { set, replicas, primary, servedBy } = setUp(2, 1_000);
    const now = jest.spyOn(Date, 'now').mockReturnValue(9_000);
    await set.sample();
    expect([await servedBy(), await servedBy(), await servedBy()]).toEqual([
      'replica-0',
      'replica-1',
      'replica-0',
    ]);

    // The primary moves on; replica-1 stops replaying.
    now.mockReturnValue(10_000);
    primary.state.lsn = '200';
    replicas[0].state.lsn = '200';
    await set.sample();
    now.mockReturnValue(11_000);
    primary.state.lsn = '300';
    replicas[0].state.lsn = '300';
    await set.sample();
    expect(set.state().map((r) => [r.status, r.lagMs])).toEqual([
      ['up', 0],
      ['lagging', 2_000],
    ]);
    expect([await servedBy(), await servedBy()]).toEqual(['replica-0', 'replica-0']);

    replicas[1].state.lsn = '300';
    await set.sample();
    expect(set.state().map((r) => r.status)).toEqual(['up', 'up']);
    now.mockRestore();
  });

  it('a read that fails on a replica is answered by the primary; a lost server is skipped until a sample finds it', async () => {
    const { set, replicas, servedBy } = setUp(1);
    await set.sample();
    replicas[0].state.down = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
    });
    expect(await servedBy()).toBe('primary');
    expect(set.state()[0]).toMatchObject({ status: 'down', fallbacks: 1 });
    expect(await servedBy()).toBe('primary');
    expect(set.primaryReads).toBe(2);

    await set.sample();
    expect(set.state()[0].status).toBe('down');
    replicas[0].state.down = undefined;
    await set.sample();
    expect(await servedBy()).toBe('replica-0');
  });

  it('a server that is not in recovery is no replica', async () => {
    const { set, replicas } = setUp(1);
    replicas[0].state.lsn = null;
    await set.sample();
    expect(set.state()[0]).toMatchObject({ status: 'down', reason: 'not a standby (not in recovery)' });
  });

  it('a caller’s reads wait for its own last write, on any session of that caller', async () => {
    const { set, primary, replicas, readYourWrites, transactions, servedBy } = setUp(1);
    await set.sample();
    // The caller writes: the primary is at 500 after the commit, the replica has replayed 100.
    primary.state.lsn = '500';
    await readYourWrites.session(
      () => 'caller-a',
      () => transactions.runAlone((tx) => tx.rowCount(INSERT)),
    );
    // Its next request (another session) reads on the primary; another caller's on the replica.
    expect(
      await readYourWrites.session(
        () => 'caller-a',
        () => servedBy(),
      ),
    ).toBe('primary');
    expect(
      await readYourWrites.session(
        () => 'caller-b',
        () => servedBy(),
      ),
    ).toBe('replica-0');
    // Once the replica has replayed past the write, it serves the caller again.
    replicas[0].state.lsn = '500';
    await set.sample();
    expect(
      await readYourWrites.session(
        () => 'caller-a',
        () => servedBy(),
      ),
    ).toBe('replica-0');
  });

  it('a session without a caller (a task’s run) waits for its own commits', async () => {
    const { set, primary, readYourWrites, transactions, servedBy } = setUp(1);
    await set.sample();
    primary.state.lsn = '500';
    const served = await readYourWrites.session(undefined, async () => {
      await transactions.runAlone((tx) => tx.rowCount(INSERT));
      return servedBy();
    });
    expect(served).toBe('primary');
  });
});

describe('write positions in memory', () => {
  it('keeps the later of two positions, forgets them after their time', async () => {
    const positions = new MemoryWritePositions(1_000);
    await positions.remember('a', 500n);
    await positions.remember('a', 300n);
    expect(await positions.recall('a')).toBe(500n);
    expect(await positions.recall('b')).toBe(0n);
    const now = jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 2_000);
    expect(await positions.recall('a')).toBe(0n);
    now.mockRestore();
  });
});

it('names a replica by host, port and database, never its credentials', () => {
  expect(nameOf('postgres://user:secret@replica.db:6543/orders')).toBe('replica.db:6543/orders');
  expect(nameOf('postgresql://replica/orders')).toBe('replica:5432/orders');
});
