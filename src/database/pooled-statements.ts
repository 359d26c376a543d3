import { Inject, Injectable } from '@nestjs/common';
import type { Pool, PoolClient, QueryConfig, QueryResult } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { TransactionSettings } from './transaction-settings';

/**
 * A statement PostgreSQL parses and plans once per pooled connection, then only binds and runs: for
 * the hottest reads, whose text never changes (a query whose text is built per request is named only
 * through `StatementVariants`, which bounds how many variants stay prepared on every connection).
 */
export interface PreparedStatement {
  name: string;
  text: string;
}

export function prepared(name: string, text: string): PreparedStatement {
  return { name, text };
}

/**
 * A family of statements whose text is built per request from a few parts (a list's filters and sort), where
 * a generic plan is as good as a custom one (the caller's to judge: e.g. a scan of one customer's index
 * range). The first `limit` (8) distinct texts are named `<family>.<n>` and prepared on each connection that
 * runs them; PostgreSQL then skips parsing and, once its generic plan proves no worse, planning, a large
 * share of a list page's database CPU (docs/decisions/0087-customer-list-pages-prepared.md). Texts beyond the
 * limit run unnamed, so rare variants never pile up on the connections.
 */
export class StatementVariants {
  private readonly named = new Map<string, PreparedStatement>();

  constructor(
    private readonly family: string,
    // Each prepared variant holds backend memory on every connection that ran it
    // (docs/decisions/0087-customer-list-pages-prepared.md).
    private readonly limit = 8,
  ) {}

  of(text: string): PreparedStatement | string {
    let statement = this.named.get(text);
    if (statement === undefined && this.named.size < this.limit) {
      statement = prepared(`${this.family}.${this.named.size}`, text);
      this.named.set(text, statement);
    }
    return statement ?? text;
  }
}

/**
 * Every statement the service runs outside a transaction: each one straight on TypeORM's `pg` pool (no
 * query runner per statement), in a transaction of its own that carries the service's settings
 * (`TransactionSettings`: the statement timeout above all), so no statement depends on what its session was
 * given at connect time. `BEGIN` with the settings, the statement and `COMMIT` go out pipelined: one round
 * trip, as the statement alone would take (docs/decisions/0065-behind-a-transaction-pooler.md).
 *
 * Statements with a fixed text are prepared (`prepared()`, `StatementVariants`), which saves both Node's and
 * the database's CPU on the hot paths (docs/decisions/0079-hot-statements-prepared.md). With
 * `DB_PREPARED_STATEMENTS=false` they all run unnamed, for a transaction pooler that cannot carry prepared
 * statements from one transaction to the next (PgBouncer before 1.21). Failures and slow statements are
 * logged as TypeORM's are (same logger, same `maxQueryExecutionTime`); errors are the driver's own, which the
 * problem filter already maps (dependency-errors.ts). Anything in a transaction of several statements goes
 * through the transaction's EntityManager; a hot statement of fixed text there runs prepared all the same
 * (`rowsIn`).
 */
@Injectable()
export class PooledStatements {
  private readonly pool: Pool;
  private readonly slowMs: number;
  private readonly begin: string;
  private readonly named: boolean;

  constructor(
    private readonly dataSource: DataSource,
    settings: TransactionSettings,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.pool = (dataSource.driver as PostgresDriver).master as Pool;
    this.slowMs = dataSource.options.maxQueryExecutionTime ?? Number.POSITIVE_INFINITY;
    this.begin = `BEGIN; ${settings.sql}`;
    this.named = config.database.preparedStatements;
  }

  /** The rows of the statement (a SELECT, or a write's RETURNING). */
  async rows<R>(statement: PreparedStatement | string, values: unknown[]): Promise<R[]> {
    return (await this.run(statement, values)).rows as R[];
  }

  /** How many rows the statement wrote (an UPDATE or DELETE without RETURNING). */
  async rowCount(statement: PreparedStatement | string, values: unknown[]): Promise<number> {
    return (await this.run(statement, values)).rowCount ?? 0;
  }

  /**
   * The rows of `statement` run in the caller's transaction, on its connection, prepared as the pooled ones
   * are: the hot writes of a request's unit of work (an order's insert, the Idempotency-Key's outcome) keep
   * their parsed plan, which TypeORM's `db.query` (always unnamed) would not.
   */
  async rowsIn<R>(db: EntityManager, statement: PreparedStatement, values: unknown[]): Promise<R[]> {
    const runner = db.queryRunner;
    if (!runner?.isTransactionActive) throw new Error('rowsIn needs the EntityManager of a transaction');
    // The runner's connection (a connected runner answers with the one it holds).
    const client = (await runner.connect()) as PoolClient;
    return (await this.run(statement, values, (query) => client.query(query))).rows as R[];
  }

  private async run(
    statement: PreparedStatement | string,
    values: unknown[],
    execute: (query: QueryConfig) => Promise<QueryResult> = (query) => this.inOwnTransaction(query),
  ): Promise<QueryResult> {
    const query: QueryConfig =
      typeof statement === 'string' || !this.named
        ? { text: typeof statement === 'string' ? statement : statement.text, values }
        : { ...statement, values };
    const started = performance.now();
    try {
      const result = await execute(query);
      const elapsed = performance.now() - started;
      if (elapsed > this.slowMs) this.dataSource.logger.logQuerySlow(Math.round(elapsed), query.text);
      return result;
    } catch (error: unknown) {
      this.dataSource.logger.logQueryError(error as Error, query.text, values);
      throw error;
    }
  }

  /**
   * The three go out together (the pool's clients pipeline: database-options.ts). A failed statement aborts
   * the transaction and the `COMMIT` then ends it as a rollback; the client goes back to the pool only once
   * all three are answered, and is dropped when `BEGIN` or `COMMIT` failed (its connection's state unknown).
   * A connection lost while the client is out of the pool fails the three queries and is also emitted as the
   * client's `error` event, which the pool listens to only while the client is idle: without a listener of our
   * own that event would end the process.
   */
  private async inOwnTransaction(query: QueryConfig): Promise<QueryResult> {
    const client: PoolClient = await this.pool.connect();
    const ignoreLostConnection = (): void => undefined;
    client.on('error', ignoreLostConnection);
    const [begun, ran, committed] = await Promise.allSettled([
      client.query(this.begin),
      client.query(query),
      client.query('COMMIT'),
    ]);
    client.removeListener('error', ignoreLostConnection);
    const broken = [begun, committed].find((r) => r.status === 'rejected');
    client.release(broken ? (broken.reason as Error) : undefined);
    // The first failure is the cause: after a failed BEGIN the statement fails too, for that reason.
    if (begun.status === 'rejected') throw begun.reason;
    if (ran.status === 'rejected') throw ran.reason;
    if (committed.status === 'rejected') throw committed.reason;
    return ran.value;
  }
}
