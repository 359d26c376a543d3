import { Client } from 'pg';
import { redisServer } from '../../src/platform/config/app-config';
import { connectRedis, deleteKeys } from '../../src/platform/redis/redis-connection';

/**
 * Undoes what the setup made: the run's database or embedded server, and every Redis key of the run (on each
 * master of a cluster).
 */
export default async function globalTeardown(): Promise<void> {
  const state = globalThis.__E2E__;
  if (state?.embedded) await state.embedded.stop();
  if (state?.adminUrl && state.database) {
    const admin = new Client({ connectionString: state.adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${state.database} WITH (FORCE)`);
    await admin.end();
  }
  const server = redisServer(process.env);
  if (server && process.env.REDIS_KEY_PREFIX) {
    const redis = connectRedis(server, {});
    try {
      await deleteKeys(redis, `${process.env.REDIS_KEY_PREFIX}*`);
    } finally {
      redis.disconnect();
    }
  }
}
