// Gives the e2e run a database and a Redis key space of its own, so runs never see each other's data:
// a fresh database on the server named by DATABASE_URL, or, when it is unset, the embedded PostgreSQL of
// `npm start` (the same code) on a cluster of the run's own, removed at the end.
//
// E2E_DATABASE_TIMEZONE (e.g. America/St_Johns: -03:30 today, -03:30:52 before 1935): the run's database
// gets it as its default time zone, so the whole run shows that no answer depends on the session's zone.
//
// E2E_POOLER_URL (a transaction-pooling PgBouncer in front of DATABASE_URL's server, e.g.
// postgres://postgres:postgres@127.0.0.1:6432): the run's database is created and migrated past it, on the
// server directly (as production's migrations Job does; the build's migrations, so build first), and the apps
// of the run connect through it with MIGRATIONS_RUN=false. E2E_DIRECT_DATABASE_URL always names the run's
// database on the server itself (the same as DATABASE_URL without a pooler).
//
// E2E_REPLICA_URL (a streaming standby of DATABASE_URL's server, e.g. from scripts/pg-replica.sh): the run's
// database on it (E2E_REPLICA_DATABASE_URL) is every app's read replica (DATABASE_REPLICA_URLS), so the whole
// run serves its lists, searches, reports and exports from the standby.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client, escapeLiteral } from 'pg';
import {
  DATABASE_NAME,
  EmbeddedDatabase,
  startEmbeddedPostgres,
} from '../../src/platform/database/embedded/embedded-server';
import { replicaOf } from './replica';

const root = path.resolve(__dirname, '../..');

/** What the teardown undoes, kept in the Jest process that runs both. */
export interface RunState {
  runId: string;
  adminUrl?: string;
  database?: string;
  embedded?: EmbeddedDatabase;
}

declare global {
  var __E2E__: RunState | undefined;
}

/**
 * Specs that start the service as a process run dist/: the build runs first, so `npx jest` and
 * `npm run test:e2e` never test a stale one (it compiles nothing when dist/ is current: `tsc --build`).
 */
function build(): void {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
}

export default async function globalSetup(): Promise<void> {
  build();
  const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  process.env.NODE_ENV = 'test';
  process.env.LOG_LEVEL ??= 'warn';
  process.env.REDIS_KEY_PREFIX = `os-test-${runId}`;
  const state: RunState = { runId };
  globalThis.__E2E__ = state;
  const timeZone = process.env.E2E_DATABASE_TIMEZONE;
  const setTimeZone = (database: string) =>
    `ALTER DATABASE ${database} SET TimeZone = ${escapeLiteral(timeZone as string)}`;

  if (process.env.DATABASE_URL) {
    const serverUrl = new URL(process.env.DATABASE_URL);
    const database = `order_service_test_${runId}`;
    const admin = new Client({ connectionString: serverUrl.toString() });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    if (timeZone) await admin.query(setTimeZone(database));
    await admin.end();
    serverUrl.pathname = `/${database}`;
    state.adminUrl = process.env.DATABASE_URL;
    state.database = database;
    process.env.E2E_DIRECT_DATABASE_URL = serverUrl.toString();
    process.env.DATABASE_URL = serverUrl.toString();
    process.env.E2E_DATABASE_MODE = 'external';
    if (process.env.E2E_POOLER_URL) {
      await migrate(serverUrl.toString());
      const poolerUrl = new URL(process.env.E2E_POOLER_URL);
      poolerUrl.pathname = `/${database}`;
      process.env.DATABASE_URL = poolerUrl.toString();
      process.env.MIGRATIONS_RUN = 'false';
    }
    const replica = replicaOf(process.env.DATABASE_URL);
    if (replica) {
      process.env.E2E_REPLICA_DATABASE_URL = replica;
      process.env.DATABASE_REPLICA_URLS = replica;
    }
  } else {
    for (const name of ['E2E_POOLER_URL', 'E2E_REPLICA_URL']) {
      if (process.env[name]) throw new Error(`${name} needs DATABASE_URL (the server behind it)`);
    }
    // Where `npm start` keeps its data (DATA_DIR, .data by default): as root under a directory the postgres
    // OS user cannot pass, the same private directory, so the binaries' copy is shared.
    state.embedded = await startEmbeddedPostgres({
      dataDir: path.resolve(root, process.env.DATA_DIR ?? '.data'),
      cluster: `test-${runId}`,
      ephemeral: true,
      warn: () => undefined,
    });
    process.env.DATABASE_URL = state.embedded.url;
    process.env.E2E_DIRECT_DATABASE_URL = process.env.DATABASE_URL;
    process.env.E2E_DATABASE_MODE = 'embedded';
    if (timeZone) {
      const admin = new Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      await admin.query(setTimeZone(DATABASE_NAME));
      await admin.end();
    }
  }
}

/**
 * The build's migrations on the run's database, then the service's session limits as its role's defaults:
 * what the migrations Job does (`node dist/scripts/migrate.js`) before pods connect through a pooler.
 */
async function migrate(url: string): Promise<void> {
  const built = path.join(root, 'dist/src/platform/database/database-options.js');
  if (!existsSync(built))
    throw new Error('E2E_POOLER_URL: build first (npm run build), the run migrates from dist/');
  /* eslint-disable @typescript-eslint/no-require-imports -- the build's own modules, not the sources */
  const { databaseOptions } = require(built) as typeof import('../../src/platform/database/database-options');
  const { runMigrationsLocked } = require(
    path.join(root, 'dist/src/platform/database/migrations-runner.js'),
  ) as typeof import('../../src/platform/database/migrations-runner');
  const { applyRoleDefaults, sessionSettings } = require(
    path.join(root, 'dist/src/platform/database/session-limits.js'),
  ) as typeof import('../../src/platform/database/session-limits');
  const { transactionLimits } = require(
    path.join(root, 'dist/src/platform/config/app-config.js'),
  ) as typeof import('../../src/platform/config/app-config');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const { DataSource } = await import('typeorm');
  const dataSource = await new DataSource(databaseOptions(url)).initialize();
  try {
    await runMigrationsLocked(dataSource);
    await applyRoleDefaults(dataSource, sessionSettings(transactionLimits()));
  } finally {
    await dataSource.destroy();
  }
}
