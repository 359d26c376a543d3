import { Inject, Injectable } from '@nestjs/common';
import {
  DataSource,
  type EntitySubscriberInterface,
  type QueryRunner,
  type TransactionCommitEvent,
  type TransactionRollbackEvent,
  type TransactionStartEvent,
} from 'typeorm';
import type { AppConfig, TransactionLimits } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';

/**
 * The server settings every transaction of the service runs with, set by the transaction itself (`SET LOCAL`,
 * undone when it ends) and never by the session: a transaction pooler hands each transaction whichever server
 * connection is free and passes on none of the client's startup options, so a session setting would hold on
 * some statements and not on others. The limits bound a stuck statement or a forgotten transaction; JIT
 * compilation costs tens of milliseconds per statement and pays off only for long analytical queries (this
 * service runs short ones and chunks its reports), so it is off. The time zone is not set: no answer depends
 * on the session's (docs/decisions/0065-behind-a-transaction-pooler.md).
 */
export function transactionSettingsSql(limits: TransactionLimits): string {
  return [
    `SET LOCAL statement_timeout = ${limits.statementTimeoutMs}`,
    `SET LOCAL idle_in_transaction_session_timeout = ${limits.idleInTransactionTimeoutMs}`,
    'SET LOCAL jit = off',
  ].join('; ');
}

/**
 * Gives every transaction of the application's DataSource its settings: the first statement after `START
 * TRANSACTION` is `transactionSettingsSql` (TypeORM's transaction events, so `dataSource.transaction()`, an
 * EntityManager's and a repository's own transactions alike). A nested transaction is a savepoint of one
 * already set. Single statements outside a transaction are `PooledStatements`', which sends the same settings
 * with its `BEGIN`; the services' transactions (`Transactions`) send them with theirs too and `adopt` the
 * runner, so its savepoints add nothing.
 */
@Injectable()
export class TransactionSettings implements EntitySubscriberInterface {
  /** The `SET LOCAL` statements, in one text (one round trip). */
  readonly sql: string;
  /** Query runners in a transaction whose settings are set. */
  private readonly set = new WeakSet<QueryRunner>();

  constructor(dataSource: DataSource, @Inject(APP_CONFIG) config: AppConfig) {
    this.sql = transactionSettingsSql(config.database.limits);
    dataSource.subscribers.push(this);
  }

  async afterTransactionStart({ queryRunner }: TransactionStartEvent): Promise<void> {
    if (this.set.has(queryRunner)) return;
    this.set.add(queryRunner);
    await queryRunner.query(this.sql);
  }

  /** `queryRunner`'s transaction was begun with the settings on its connection directly (`Transactions`). */
  adopt(queryRunner: QueryRunner): void {
    this.set.add(queryRunner);
  }

  afterTransactionCommit({ queryRunner }: TransactionCommitEvent): void {
    this.ended(queryRunner);
  }

  afterTransactionRollback({ queryRunner }: TransactionRollbackEvent): void {
    this.ended(queryRunner);
  }

  /** Still active after a commit or rollback: a savepoint ended, not the transaction. */
  private ended(queryRunner: QueryRunner): void {
    if (!queryRunner.isTransactionActive) this.set.delete(queryRunner);
  }
}
