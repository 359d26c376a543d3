import { Injectable, Optional } from '@nestjs/common';
import { DatabasePool } from './database-pool';
import { ReadYourWrites } from './read-your-writes';
import { ReplicaSet } from './replicas';
import type { ReadStatement } from './sql-statement';
import { StatementRunner } from './statement-runner';
import { Transactions } from './transactions';

/**
 * The reads of the service, the one way to run one: in the caller's transaction when its scope has begun one
 * (a request that already wrote reads its own writes, on its connection), otherwise as one statement alone on
 * the pool, with no transaction around it: the session's limits hold it (docs/decisions/0140-limits-held-by-the-session.md).
 * A `replicaRead` outside a transaction goes to a read replica that is up and has replayed the reader's own
 * last write, when there is one; a read that fails there is answered by the primary
 * (docs/decisions/0147-read-replicas-routed-by-the-executor.md).
 * Writes run only in a transaction (`Transactions.run` gives the `Tx` that runs them).
 */
@Injectable()
export class Sql {
  constructor(
    private readonly pool: DatabasePool,
    private readonly runner: StatementRunner,
    private readonly transactions: Transactions,
    // Absent where a pool of the service's statements is made by hand (a script, a test): no replicas.
    @Optional() private readonly replicas?: ReplicaSet,
    @Optional() private readonly readYourWrites?: ReadYourWrites,
  ) {}

  async rows<R>(statement: ReadStatement, values: readonly unknown[] = []): Promise<R[]> {
    const tx = this.transactions.current();
    if (tx) return tx.rows<R>(statement, values);
    if (statement.replica && this.replicas?.enabled && this.readYourWrites) {
      const replica = this.replicas.pick(await this.readYourWrites.required());
      if (replica) {
        try {
          const rows = (await this.runner.run(replica.pool, statement, values)).rows as R[];
          this.replicas.served(replica);
          return rows;
        } catch (error: unknown) {
          this.replicas.failed(replica, error);
        }
      }
      this.replicas.servedByPrimary();
    }
    return (await this.runner.run(this.pool.pool, statement, values)).rows as R[];
  }
}
