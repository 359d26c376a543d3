import { Injectable, Logger } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { PoolClient } from 'pg';
import { DataSource, type EntityManager, type QueryRunner } from 'typeorm';
import { TransactionSettings } from './transaction-settings';

/** Work that must wait for the transaction's commit: queueing a job, anything outside PostgreSQL. */
export type AfterCommit = () => Promise<unknown> | unknown;

/**
 * One database transaction that every `Transactions.run` made in its scope joins, opened by the first of them
 * (a scope whose work never writes costs nothing), ended by whoever created it: `commit` or `rollback`. Work
 * that throws rolls it back at once, as a transaction of its own would have been rolled back, and gives its
 * connection back (the error's answer may need one); it stays rollback-only. A nested transaction (a
 * savepoint) stays what it is: `db.transaction()` on the joined EntityManager.
 *
 * Its work runs on one connection, one statement at a time: the runs of one scope follow each other.
 */
export class UnitOfWork {
  private runner?: QueryRunner;
  private opening?: Promise<EntityManager>;
  private failed = false;
  private ended = false;
  private readonly afterCommit: AfterCommit[] = [];

  constructor(
    private readonly dataSource: DataSource,
    private readonly settings: TransactionSettings,
    private readonly logger: Logger,
  ) {}

  /** The transaction was begun (some work joined it) and has not ended. */
  get open(): boolean {
    return this.opening !== undefined && !this.ended;
  }

  /** Some work failed in it: it can only be rolled back. */
  get rollbackOnly(): boolean {
    return this.failed;
  }

  async run<T>(work: (db: EntityManager) => Promise<T>): Promise<T> {
    if (this.ended) throw new Error('the unit of work has already ended');
    try {
      return await work(await this.manager());
    } catch (error: unknown) {
      this.failed = true;
      await this.rollback();
      throw error;
    }
  }

  /** Runs `callback` once the transaction has committed; never if it rolls back. */
  onCommit(callback: AfterCommit): void {
    this.afterCommit.push(callback);
  }

  /**
   * Commits, `last` being the transaction's final work (its outcome written with the change). A failure of
   * `last` or of the commit rolls everything back and is thrown. The creator then runs `runAfterCommit`.
   */
  async commit(last?: (db: EntityManager) => Promise<void>): Promise<void> {
    if (this.failed) throw new Error('a unit of work whose work failed cannot commit');
    // A failure of `last` rolls everything back (`run`).
    if (last) await this.run(last);
    const runner = this.runner;
    this.runner = undefined;
    this.ended = true;
    if (runner) {
      try {
        await connectionOf(runner).query('COMMIT');
      } catch (error: unknown) {
        await this.discard(runner);
        throw error;
      }
      markTransaction(runner, false);
      await runner.release();
    }
  }

  /**
   * Undoes whatever joined; the after-commit work is dropped. Never throws (a connection whose rollback
   * failed is dropped); a second call does nothing.
   */
  async rollback(): Promise<void> {
    this.ended = true;
    this.afterCommit.length = 0;
    if (!this.opening) return;
    await this.opening.catch(() => undefined);
    const runner = this.runner;
    this.runner = undefined;
    if (runner) await this.discard(runner);
  }

  private manager(): Promise<EntityManager> {
    this.opening ??= (async () => {
      const runner = this.dataSource.createQueryRunner();
      try {
        await runner.connect();
        // BEGIN with the service's settings in one round trip, on the runner's connection; TypeORM is told the
        // runner is in a transaction, so that nested work makes savepoints.
        await connectionOf(runner).query(`BEGIN; ${this.settings.sql}`);
        markTransaction(runner, true);
        this.settings.adopt(runner);
      } catch (error: unknown) {
        await runner.release().catch(() => undefined);
        throw error;
      }
      this.runner = runner;
      return runner.manager;
    })();
    return this.opening;
  }

  private async discard(runner: QueryRunner): Promise<void> {
    try {
      await connectionOf(runner).query('ROLLBACK');
      markTransaction(runner, false);
      await runner.release();
    } catch (error: unknown) {
      // A connection whose state is unknown goes back to no one: pg drops it when released with an error.
      this.logger.warn({ msg: 'rollback failed', reason: error instanceof Error ? error.message : error });
      await (runner as PostgresRunner).release(error as Error).catch(() => undefined);
    }
  }

  /** The work that waited for the commit, in the order it was registered; a failure is logged. */
  async runAfterCommit(): Promise<void> {
    for (const callback of this.afterCommit.splice(0)) {
      try {
        await callback();
      } catch (error: unknown) {
        // The change is committed: what follows it has its own retry (e.g. the task reconciler).
        this.logger.error({ msg: 'work after a commit failed', err: error }, undefined);
      }
    }
  }
}

/** TypeORM's PostgreSQL query runner: its connection, and a release that can drop a broken one. */
interface PostgresRunner extends QueryRunner {
  release(error?: Error): Promise<void>;
}

/** The connection `runner` holds (connected: `connect()` answers with it at once). */
function connectionOf(runner: QueryRunner): { query(text: string): Promise<unknown> } {
  return {
    query: async (text: string) => ((await runner.connect()) as PoolClient).query(text),
  };
}

/**
 * Tells TypeORM's runner that its transaction began (or ended) on its connection: `db.transaction()` then
 * makes savepoints inside it. TypeORM's own begin and commit cost a statement and two rounds of subscriber
 * events each; a keyed request begins and commits one transaction, every time.
 */
function markTransaction(runner: QueryRunner, active: boolean): void {
  const state = runner as unknown as { isTransactionActive: boolean; transactionDepth: number };
  state.isTransactionActive = active;
  state.transactionDepth = active ? 1 : 0;
}

/**
 * Every transaction of the service's requests and jobs: `run(work)` gives `work` an EntityManager in a
 * transaction, which carries the service's settings (TransactionSettings). Inside a unit of work (`within`:
 * the request unit an `@Idempotent()` handler runs in) it joins that unit's one transaction, so the request's
 * changes commit together with the Idempotency-Key's outcome (docs/decisions/0100-exactly-once-request-unit-of-work.md);
 * elsewhere it is a transaction of its own, committed when `work` resolves and rolled back when it throws.
 * `afterCommit` defers what must follow the commit (queueing a task's job): in a transaction, until it
 * commits; outside one, it runs at once.
 */
@Injectable()
export class Transactions {
  private readonly scope = new AsyncLocalStorage<UnitOfWork>();
  private readonly logger = new Logger('Transactions');

  constructor(
    private readonly dataSource: DataSource,
    private readonly settings: TransactionSettings,
  ) {}

  run<T>(work: (db: EntityManager) => Promise<T>): Promise<T> {
    const unit = this.scope.getStore();
    if (unit) return unit.run(work);
    const own = this.unitOfWork();
    return this.scope.run(own, async () => {
      // A failure rolls it back (`run`).
      const result = await own.run(work);
      await own.commit();
      await own.runAfterCommit();
      return result;
    });
  }

  async afterCommit(callback: AfterCommit): Promise<void> {
    const unit = this.scope.getStore();
    if (unit) unit.onCommit(callback);
    else await callback();
  }

  /** A unit of work for `within`; its creator commits or rolls it back. */
  unitOfWork(): UnitOfWork {
    return new UnitOfWork(this.dataSource, this.settings, this.logger);
  }

  /** Runs `body` (and everything it starts) with `unit` as the transaction every `run` joins. */
  within<T>(unit: UnitOfWork, body: () => T): T {
    return this.scope.run(unit, body);
  }
}
