import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

type MetadataStorage = ReturnType<typeof getMetadataStorage>;

const MEMOIZED = Symbol('order-service.memoized-validation-metadata');

/**
 * class-validator looks a class's constraints up again on every validation: it filters the class's own and
 * walks every registered class for inherited ones (`getTargetValidationMetadatas`), then groups them by
 * property — for each DTO and each nested object, on every request (most of a list query's validation:
 * docs/decisions/0082-per-process-work-once.md). A class's constraints are fixed once the class is defined
 * (its decorators ran), and this service validates without groups, so both answers are kept per class. A
 * lookup with groups is passed through as it is.
 */
export function memoizeValidationMetadata(storage: MetadataStorage = getMetadataStorage()): void {
  const patched = storage as MetadataStorage & { [MEMOIZED]?: true };
  if (patched[MEMOIZED]) return;
  patched[MEMOIZED] = true;

  const lookup = storage.getTargetValidationMetadatas.bind(storage);
  const lookups = new Map<unknown, Map<string, ValidationMetadata[]>>();
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    if (groups && groups.length > 0) return lookup(target, schema, always, strictGroups, groups);
    let byOptions = lookups.get(target);
    if (!byOptions) lookups.set(target, (byOptions = new Map()));
    const key = `${schema}\u0000${always}\u0000${strictGroups}`;
    let metadata = byOptions.get(key);
    if (!metadata) byOptions.set(key, (metadata = lookup(target, schema, always, strictGroups, groups)));
    return metadata;
  };

  const group = storage.groupByPropertyName.bind(storage);
  const groupings = new WeakMap<ValidationMetadata[], Record<string, ValidationMetadata[]>>();
  storage.groupByPropertyName = (metadata) => {
    let grouped = groupings.get(metadata);
    if (!grouped) groupings.set(metadata, (grouped = group(metadata)));
    return grouped;
  };
}
