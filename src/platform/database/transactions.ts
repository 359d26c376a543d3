import { Injectable, Logger, Optional } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Pool, PoolClient } from 'pg';
import { DatabasePool } from './database-pool';
import { ReadYourWrites } from './read-your-writes';
import type { SqlStatement } from './sql-statement';
import { StatementRunner } from './statement-runner';

/** Work that must wait for the transaction's commit: queueing a job, anything outside PostgreSQL. */
export type AfterCommit = () => Promise<unknown> | unknown;

/**
 * A transaction's statements, reads and writes alike, on the transaction's connection. Only `Transactions`
 * hands one out, so a write (a `WriteStatement`, which only a `Tx` runs) is always in a transaction.
 */
export interface Tx {
  /** The rows of the statement (a SELECT, or a write's RETURNING). */
  rows<R>(statement: SqlStatement, values?: readonly unknown[]): Promise<R[]>;
  /** How many rows the statement wrote (an UPDATE or DELETE without RETURNING). */
  rowCount(statement: SqlStatement, values?: readonly unknown[]): Promise<number>;
  /** `work` in a savepoint: when it throws, its changes alone are undone and the transaction goes on. */
  savepoint<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
}

/** A transaction on one held connection. Its statements follow each other (the connection queues them). */
class ConnectionTx implements Tx {
  private savepoints = 0;

  constructor(
    private readonly client: PoolClient,
    private readonly runner: StatementRunner,
  ) {}

  async rows<R>(statement: SqlStatement, values: readonly unknown[] = []): Promise<R[]> {
    return (await this.runner.run(this.client, statement, values)).rows as R[];
  }

  async rowCount(statement: SqlStatement, values: readonly unknown[] = []): Promise<number> {
    return (await this.runner.run(this.client, statement, values)).rowCount ?? 0;
  }

  async savepoint<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const name = `savepoint_${++this.savepoints}`;
    await this.client.query(`SAVEPOINT ${name}`);
    let result: T;
    try {
      result = await work(this);
    } catch (error: unknown) {
      await this.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
      throw error;
    }
    await this.client.query(`RELEASE SAVEPOINT ${name}`);
    return result;
  }
}

/** Lost connections are reported as the failure of their statements; the client's `error` event must not end the process. */
const ignoreLostConnection = (): void => undefined;

/**
 * One database transaction that every `Transactions.run` made in its scope joins, begun by the first of them
 * (a scope whose work never writes costs nothing), ended by whoever created it: `commit` or `rollback`. Work
 * that throws rolls it back at once, as a transaction of its own would have been rolled back, and gives its
 * connection back (the error's answer may need one); it stays rollback-only.
 */
export class UnitOfWork {
  private client?: PoolClient;
  private tx?: Tx;
  private opening?: Promise<Tx>;
  private failed = false;
  private ended = false;
  private readonly afterCommit: AfterCommit[] = [];

  constructor(
    private readonly pool: Pool,
    private readonly runner: StatementRunner,
    private readonly logger: Logger,
    // After the commit, on its connection: what the read replicas must replay before serving its reader.
    private readonly committed?: (connection: PoolClient) => Promise<void>,
  ) {}

  /** The transaction was begun (some work joined it) and has not ended. */
  get open(): boolean {
    return this.opening !== undefined && !this.ended;
  }

  /** Some work failed in it: it can only be rolled back. */
  get rollbackOnly(): boolean {
    return this.failed;
  }

  /**
   * Its creator ended it (committed, or rolled back its answer) without any of its work failing: work still
   * running in its scope afterwards (a timer, an in-process job started after the commit) is on its own.
   */
  get closed(): boolean {
    return this.ended && !this.failed;
  }

  /** The begun transaction, for reads made in its scope (they see its writes); undefined before and after. */
  get current(): Tx | undefined {
    return this.ended ? undefined : this.tx;
  }

  async run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    if (this.ended) throw new Error('the unit of work has already ended');
    try {
      return await work(await this.begin());
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
   * Commits, `last` being the transaction's final work (e.g. a request's outcome written with its change). A
   * failure of `last` or of the commit rolls everything back and is thrown. The creator then runs
   * `runAfterCommit`.
   */
  async commit(last?: (tx: Tx) => Promise<void>): Promise<void> {
    if (this.failed) throw new Error('a unit of work whose work failed cannot commit');
    // A failure of `last` rolls everything back (`run`).
    if (last) await this.run(last);
    const client = this.client;
    this.client = undefined;
    this.ended = true;
    if (!client) return;
    try {
      await client.query('COMMIT');
    } catch (error: unknown) {
      this.discard(client, error);
      throw error;
    }
    try {
      await this.committed?.(client);
    } finally {
      this.release(client);
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
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    try {
      await client.query('ROLLBACK');
      this.release(client);
    } catch (error: unknown) {
      this.logger.warn({ msg: 'rollback failed', reason: error instanceof Error ? error.message : error });
      this.discard(client, error);
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

  private begin(): Promise<Tx> {
    this.opening ??= (async () => {
      const client = await this.pool.connect();
      client.on('error', ignoreLostConnection);
      try {
        await client.query('BEGIN');
      } catch (error: unknown) {
        this.discard(client, error);
        throw error;
      }
      this.client = client;
      this.tx = new ConnectionTx(client, this.runner);
      return this.tx;
    })();
    return this.opening;
  }

  private release(client: PoolClient): void {
    client.removeListener('error', ignoreLostConnection);
    client.release();
  }

  /** A connection whose state is unknown goes back to no one: the pool drops a client released with an error. */
  private discard(client: PoolClient, error: unknown): void {
    client.removeListener('error', ignoreLostConnection);
    client.release(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * Every transaction of the service's requests and jobs: `run(work)` gives `work` a `Tx`. Inside a unit of work
 * (`within`: the request's, docs/architecture.md "Running SQL") it joins that unit's one transaction, so a
 * request's changes commit together, and with its Idempotency-Key's outcome when it has one; elsewhere (a job)
 * it is a transaction of its own, committed when `work` resolves and rolled back when it throws. `runAlone`
 * is always a transaction of its own, for a write that must commit whatever becomes of the request around it.
 * `afterCommit` defers what must follow the commit (queueing a task's job): in a transaction, until it
 * commits; outside one, it runs at once. `current` is the transaction reads join (`Sql`).
 */
@Injectable()
export class Transactions {
  private readonly scope = new AsyncLocalStorage<UnitOfWork>();
  private readonly logger = new Logger('Transactions');

  private readonly committed?: (connection: PoolClient) => Promise<void>;

  constructor(
    private readonly pool: DatabasePool,
    private readonly runner: StatementRunner,
    @Optional() readYourWrites?: ReadYourWrites,
  ) {
    if (readYourWrites?.enabled) this.committed = (connection) => readYourWrites.committed(connection);
  }

  run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const unit = this.scope.getStore();
    return unit && !unit.closed ? unit.run(work) : this.runAlone(work);
  }

  runAlone<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
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
    if (unit && !unit.closed) unit.onCommit(callback);
    else await callback();
  }

  /** The transaction begun in the caller's scope, if any. */
  current(): Tx | undefined {
    return this.scope.getStore()?.current;
  }

  /** A unit of work for `within`; its creator commits or rolls it back. */
  unitOfWork(): UnitOfWork {
    return new UnitOfWork(this.pool.pool, this.runner, this.logger, this.committed);
  }

  /** Runs `body` (and everything it starts) with `unit` as the transaction every `run` joins. */
  within<T>(unit: UnitOfWork, body: () => T): T {
    return this.scope.run(unit, body);
  }
}
