import { Injectable } from '@nestjs/common';
import { DatabasePool } from './database-pool';
import type { ReadStatement } from './sql-statement';
import { StatementRunner } from './statement-runner';
import { Transactions } from './transactions';

/**
 * The reads of the service, the one way to run one: in the caller's transaction when its scope has begun one
 * (a request that already wrote reads its own writes, on its connection), otherwise as one statement alone on
 * the pool, with no transaction around it: the session's limits hold it (docs/decisions/0140-limits-held-by-the-session.md).
 * Writes run only in a transaction (`Transactions.run` gives the `Tx` that runs them).
 */
@Injectable()
export class Sql {
  constructor(
    private readonly pool: DatabasePool,
    private readonly runner: StatementRunner,
    private readonly transactions: Transactions,
  ) {}

  async rows<R>(statement: ReadStatement, values: readonly unknown[] = []): Promise<R[]> {
    const tx = this.transactions.current();
    if (tx) return tx.rows<R>(statement, values);
    return (await this.runner.run(this.pool.pool, statement, values)).rows as R[];
  }
}
