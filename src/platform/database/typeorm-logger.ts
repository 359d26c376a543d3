import { Logger as NestLogger } from '@nestjs/common';
import type { Logger, QueryRunner } from 'typeorm';

/** The statement text in a log line: one line, bounded; parameters are never logged (they carry request data). */
function statement(query: string): string {
  const line = query.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/**
 * TypeORM's messages as one JSON line each (through the process logger), without parameter values. A
 * failed statement is a warning with its SQLSTATE: whoever sent it decides what it means (a unique
 * violation is often an expected outcome); a statement slower than `maxQueryExecutionTime` is a warning too.
 */
export class TypeOrmLogger implements Logger {
  private readonly logger = new NestLogger('Database');

  logQuery(): void {
    // Statements that succeed are not logged (the `query` level is off).
  }

  logQueryError(error: string | Error, query: string, _parameters?: unknown[], _runner?: QueryRunner): void {
    const { code, message } =
      typeof error === 'string' ? { code: undefined, message: error } : (error as Error & { code?: string });
    this.logger.warn({ msg: 'statement failed', code, error: message, statement: statement(query) });
  }

  logQuerySlow(time: number, query: string): void {
    this.logger.warn({ msg: 'slow statement', durationMs: time, statement: statement(query) });
  }

  logSchemaBuild(message: string): void {
    this.logger.log(message);
  }

  logMigration(message: string): void {
    this.logger.log(message);
  }

  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (level === 'warn') this.logger.warn(String(message));
    else this.logger.log(String(message));
  }
}
