import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { AppConfig, TransactionLimits } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { Sql } from './sql';
import { read } from './sql-statement';

/**
 * The server settings every session of the service runs with. The limits bound a stuck statement or a
 * forgotten transaction; JIT compilation costs tens of milliseconds per statement and pays off only for long
 * analytical queries (this service runs short ones and chunks its reports), so it is off. They belong to the
 * session, so no statement pays for them (docs/decisions/0140-limits-held-by-the-session.md): on a direct
 * connection the service asks for them when it connects (the startup `options`); behind a transaction
 * pooler, which drops startup options, they are the service role's defaults in its database
 * (`npm run db:session-limits`) or the pooler's `connect_query`.
 */
export type SessionSettings = Record<
  'statement_timeout' | 'idle_in_transaction_session_timeout' | 'jit',
  string
>;

export function sessionSettings(limits: TransactionLimits): SessionSettings {
  return {
    statement_timeout: String(limits.statementTimeoutMs),
    idle_in_transaction_session_timeout: String(limits.idleInTransactionTimeoutMs),
    jit: 'off',
  };
}

/** The migrations' sessions: no limit (an index build may take long), whatever the role's defaults say. */
export const MIGRATION_SETTINGS: Partial<SessionSettings> = {
  statement_timeout: '0',
  idle_in_transaction_session_timeout: '0',
};

/** `settings` as libpq's startup `options` (`-c name=value …`). */
export function startupOptions(settings: Partial<SessionSettings>): string {
  return Object.entries(settings)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');
}

/**
 * The statements that make `settings` the connecting role's defaults in its current database: what a pooler's
 * new server sessions then start with. An ordinary role may set its own. Values are numbers or `off`, never
 * user input.
 */
export function roleDefaultsSql(settings: SessionSettings, database: string): string[] {
  const quoted = `"${database.replace(/"/g, '""')}"`;
  return Object.entries(settings).map(
    ([name, value]) => `ALTER ROLE CURRENT_USER IN DATABASE ${quoted} SET ${name} = '${value}'`,
  );
}

/**
 * Makes `settings` the defaults of the role `dataSource` connects as, in its database: `npm run
 * db:session-limits` and the migrations Job run it. New sessions get them; a pooler's open server connections
 * keep what they had until they are recycled (docs/operations.md says how). Resolves to the role and database.
 */
export async function applyRoleDefaults(
  dataSource: DataSource,
  settings: SessionSettings,
): Promise<{ role: string; database: string }> {
  const [target] = (await dataSource.query(
    'SELECT current_user AS role, current_database() AS database',
  )) as Array<{ role: string; database: string }>;
  for (const statement of roleDefaultsSql(settings, target.database)) await dataSource.query(statement);
  return target;
}

/** In milliseconds as `pg_settings` gives them (`setting` is in the setting's own unit). */
const READ_EFFECTIVE = read(
  `SELECT name, CASE WHEN unit = 's' THEN (setting::bigint * 1000)::text
                     WHEN unit = 'min' THEN (setting::bigint * 60000)::text
                     ELSE setting END AS value
   FROM pg_settings WHERE name = ANY($1::text[])`,
);

/**
 * At start, reads the limits the service's connections actually have (a pooled connection, as any statement
 * gets one) and logs one warning for each that differs from the service's settings; it still starts. `/info`
 * shows them.
 */
@Injectable()
export class SessionLimits implements OnApplicationBootstrap {
  private readonly logger = new Logger('Database');
  private readonly wanted: SessionSettings;
  private found: Partial<SessionSettings> = {};

  constructor(
    private readonly sql: Sql,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.wanted = sessionSettings(config.database.limits);
  }

  /** The effective limits, as last read. */
  get effective(): Partial<SessionSettings> {
    return this.found;
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.check();
  }

  /** Reads the effective settings; the names of those that differ from the service's. */
  async check(): Promise<string[]> {
    const rows = await this.sql.rows<{ name: keyof SessionSettings; value: string }>(READ_EFFECTIVE, [
      Object.keys(this.wanted),
    ]);
    this.found = Object.fromEntries(rows.map((row) => [row.name, row.value]));
    const differing = (Object.keys(this.wanted) as Array<keyof SessionSettings>).filter(
      (name) => this.found[name] !== this.wanted[name],
    );
    for (const name of differing) {
      this.logger.warn({
        msg: 'a session limit differs from the service setting: run npm run db:session-limits (see docs/operations.md)',
        setting: name,
        effective: this.found[name],
        expected: this.wanted[name],
      });
    }
    return differing;
  }
}
