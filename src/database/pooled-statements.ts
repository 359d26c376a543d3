import { Injectable } from '@nestjs/common';
import type { Pool, QueryConfig } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

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
 * A family of statements whose text is built per request from a few parts (a list's filters and sort),
 * where a generic plan is as good as a custom one (the caller's to judge: e.g. a scan of one customer's
 * index range). The first `limit` (8) distinct texts are named `<family>.<n>` and prepared on each connection
 * that runs them; PostgreSQL then skips parsing and, once its generic plan proves no worse, planning, a
 * large share of a list page's database CPU (docs/benchmarks.md). Texts beyond the limit run unnamed, so
 * rare variants never pile up on the connections.
 */
export class StatementVariants {
  private readonly named = new Map<string, PreparedStatement>();

  constructor(
    private readonly family: string,
    // Each prepared variant holds backend memory on every connection that ran it (docs/decisions.md).
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
 * Single statements straight on TypeORM's `pg` pool, outside any transaction (each commits by itself): no
 * query runner per statement, and prepared statements where the text is fixed. For the hot paths, where
 * both save Node's and the database's CPU (docs/benchmarks.md).
 * Failures and slow statements are logged as TypeORM's are (same logger, same `maxQueryExecutionTime`);
 * errors are the driver's own, which the problem filter already maps (dependency-errors.ts). Anything in
 * a transaction goes through the transaction's EntityManager.
 */
@Injectable()
export class PooledStatements {
  private readonly pool: Pool;
  private readonly slowMs: number;

  constructor(private readonly dataSource: DataSource) {
    this.pool = (dataSource.driver as PostgresDriver).master as Pool;
    this.slowMs = dataSource.options.maxQueryExecutionTime ?? Number.POSITIVE_INFINITY;
  }

  async rows<R>(statement: PreparedStatement | string, values: unknown[]): Promise<R[]> {
    const query: QueryConfig =
      typeof statement === 'string' ? { text: statement, values } : { ...statement, values };
    const started = performance.now();
    try {
      const result = await this.pool.query(query);
      const elapsed = performance.now() - started;
      if (elapsed > this.slowMs) this.dataSource.logger.logQuerySlow(Math.round(elapsed), query.text);
      return result.rows as R[];
    } catch (error: unknown) {
      this.dataSource.logger.logQueryError(error as Error, query.text, values);
      throw error;
    }
  }
}
