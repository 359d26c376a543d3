import IORedis from 'ioredis';
import { Client } from 'pg';

/** Undoes what the setup made: the run's database or embedded server, and every Redis key of the run. */
export default async function globalTeardown(): Promise<void> {
  const state = globalThis.__E2E__;
  if (state?.embedded) await state.embedded.stop();
  if (state?.adminUrl && state.database) {
    const admin = new Client({ connectionString: state.adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${state.database} WITH (FORCE)`);
    await admin.end();
  }
  if (process.env.REDIS_URL && process.env.REDIS_KEY_PREFIX) {
    const redis = new IORedis(process.env.REDIS_URL);
    try {
      await deleteKeys(redis, `${process.env.REDIS_KEY_PREFIX}*`);
    } finally {
      redis.disconnect();
    }
  }
}

export async function deleteKeys(redis: IORedis, pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}
