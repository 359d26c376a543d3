import type { AddressInfo } from 'node:net';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ModuleImports } from '../../src/bootstrap/app.module';
import { createHttpApp } from '../../src/bootstrap/http-app';
import { AppConfig, loadConfig } from '../../src/platform/config/app-config';
import { replicaOf } from './replica';

export interface TestApp {
  app: NestFastifyApplication;
  config: AppConfig;
  close(): Promise<void>;
}

/**
 * Boots the real HTTP application (the one main.ts runs) on the run's database and Redis key space.
 * `env` overrides settings for one test file (e.g. RATE_LIMIT_LIMIT); `extraImports` mounts probe modules
 * (test-only controllers) that exercise a mechanism before any business endpoint uses it.
 */
export async function bootTestApp(
  env: Record<string, string | undefined> = {},
  extraImports: ModuleImports = [],
): Promise<TestApp> {
  // Suites other than the rate-limit one send far more than 100 requests a minute from one client.
  const settings: Record<string, string | undefined> = {
    RATE_LIMIT_LIMIT: '1000000',
    ...process.env,
    ...env,
  };
  // An app on a database URL of its own (another route to the server, other options) reads from the
  // standby's copy of that one, as the run's apps do from theirs.
  if (env.DATABASE_URL !== undefined && !('DATABASE_REPLICA_URLS' in env)) {
    settings.DATABASE_REPLICA_URLS = replicaOf(env.DATABASE_URL);
  }
  const config = loadConfig(settings);
  config.database.embedded = process.env.E2E_DATABASE_MODE === 'embedded';
  const app = await createHttpApp(config, { extraImports });
  await app.getHttpAdapter().getInstance().ready();
  return { app, config, close: () => app.close() };
}

/** Opens the booted app on a free port of 127.0.0.1, for tests that call it over HTTP; its base URL. */
export async function listenOnFreePort(t: TestApp): Promise<string> {
  await t.app.listen(0, '127.0.0.1');
  const { port } = t.app.getHttpServer().address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}
