import type { QueryConfig, QueryResult } from 'pg';
import type { Logger } from 'typeorm';
import type { SqlStatement } from './sql-statement';

/** Something that runs one statement: the pool (a connection for that statement alone) or a held connection. */
export interface StatementTarget {
  query(config: QueryConfig): Promise<QueryResult>;
}

/**
 * Runs a statement on a target, the only code that sends one: named when the statement is prepared and
 * prepared statements are on (`DB_PREPARED_STATEMENTS=false` sends every statement unnamed, for a pooler that
 * cannot carry them between transactions); slow and failed statements logged as TypeORM's are, through the
 * same logger and `maxQueryExecutionTime`, never with their parameters. Errors are the driver's own, which the
 * problem filter already maps (dependency-errors.ts).
 */
export class StatementRunner {
  constructor(
    private readonly logger: Logger,
    private readonly slowMs: number,
    private readonly prepared: boolean,
  ) {}

  async run(
    target: StatementTarget,
    statement: SqlStatement,
    values: readonly unknown[],
  ): Promise<QueryResult> {
    const query: QueryConfig = {
      text: statement.text,
      values: values as unknown[],
      ...(this.prepared && statement.name !== undefined ? { name: statement.name } : {}),
    };
    const started = performance.now();
    try {
      const result = await target.query(query);
      const elapsed = performance.now() - started;
      if (elapsed > this.slowMs) this.logger.logQuerySlow(Math.round(elapsed), statement.text);
      return result;
    } catch (error: unknown) {
      this.logger.logQueryError(error as Error, statement.text);
      throw error;
    }
  }
}
