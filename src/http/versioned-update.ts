import type { EntityManager, EntityTarget, ObjectLiteral, QueryDeepPartialEntity } from 'typeorm';
import { AppException } from '../problem/app-exception';

/**
 * Optimistic locking: a compare-and-set on the entity's `@VersionColumn()`,
 * `UPDATE … SET <changes>, version = version + 1 WHERE <criteria> AND version = <expectedVersion>`.
 *
 * TypeORM's `save()` increments the version without checking it, so two writers that read the same
 * version would both win; here the loser's UPDATE matches no row and the request ends in 409
 * `CONCURRENT_MODIFICATION` (as a mismatched `If-Match` does). A row deleted meanwhile is the same
 * conflict: the caller read it, then someone else changed it. Returns the new version (for the new ETag).
 *
 * Usage: read the entity (its version is the one the client's `If-Match` was checked against), then
 * `const version = await updateVersioned(manager, DocumentEntity, { documentId }, document.version, { title })`.
 * `changes` never names the version column: the update increments it.
 */
export async function updateVersioned<Entity extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<Entity>,
  /** Identifies exactly one row, normally its primary key. */
  criteria: Partial<Entity>,
  expectedVersion: number,
  changes: QueryDeepPartialEntity<Entity>,
): Promise<number> {
  const metadata = manager.connection.getMetadata(target);
  const versionColumn = metadata.versionColumn;
  if (!versionColumn) throw new Error(`${metadata.name} has no @VersionColumn() to lock on`);
  // UpdateQueryBuilder adds `version = version + 1` by itself for entities with a version column.
  const result = await manager
    .createQueryBuilder()
    .update(target)
    .set(changes)
    .where({ ...criteria, [versionColumn.propertyName]: expectedVersion })
    .execute();
  if (result.affected === 0) throw new AppException('CONCURRENT_MODIFICATION');
  // More than one row: the criteria are not a key. Run it in a transaction to have it rolled back.
  if (result.affected !== 1)
    throw new Error(`${metadata.name}: versioned update hit ${result.affected} rows`);
  return expectedVersion + 1;
}
