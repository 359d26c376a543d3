import { DataSource } from 'typeorm';

/** Arbitrary but fixed: every replica contends for the same advisory lock. */
const MIGRATIONS_LOCK_ID = 7_250_101;

/**
 * Applies pending migrations under a PostgreSQL advisory lock, so replicas starting together run them
 * once (typeorm#4588) while the others wait and then find nothing to do.
 */
export async function runMigrationsLocked(dataSource: DataSource): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATIONS_LOCK_ID]);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATIONS_LOCK_ID]).catch(() => undefined);
    await runner.release();
  }
}
