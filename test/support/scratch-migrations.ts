import { DataSource } from 'typeorm';
import { migrations } from '../../migrations';
import { databaseOptions } from '../../src/platform/database/database-options';

/**
 * The migrations up to a named one, for a test that seeds the schema from before a change and then migrates
 * (a database of its own): `before` leaves the named migration out, `through` includes it.
 */
export function migrationsUpTo(name: string, bound: 'before' | 'through'): typeof migrations {
  const at = migrations.findIndex((migration) => migration.name === name);
  if (at < 0) throw new Error(`no migration named ${name}`);
  return migrations.slice(0, bound === 'before' ? at : at + 1);
}

/** Runs `list` (all by default) on the database at `url`, each in its own transaction; what ran. */
export async function migrateDatabase(url: string, list: typeof migrations = migrations): Promise<string[]> {
  const source = await new DataSource({ ...databaseOptions(url), migrations: list }).initialize();
  try {
    return (await source.runMigrations({ transaction: 'each' })).map((migration) => migration.name);
  } finally {
    await source.destroy();
  }
}
