import { rmSync } from 'node:fs';
import pg from 'pg';

export default async function globalTeardown() {
  const state = globalThis.__E2E__ ?? {};
  if (state.embedded) await state.embedded.stop();
  if (state.embeddedDir) rmSync(state.embeddedDir, { recursive: true, force: true });
  if (state.adminUrl && state.database) {
    const admin = new pg.Client({ connectionString: state.adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${state.database} WITH (FORCE)`);
    await admin.end();
  }
  if (process.env.REDIS_URL && process.env.REDIS_KEY_PREFIX) {
    const { default: Redis } = await import('ioredis');
    const redis = new Redis(process.env.REDIS_URL);
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(
        cursor,
        'MATCH',
        `${process.env.REDIS_KEY_PREFIX}*`,
        'COUNT',
        500,
      );
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    redis.disconnect();
  }
}
