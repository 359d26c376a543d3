import { getMetadataStorage, IsInt, Min, validateSync } from 'class-validator';
import { memoizeValidationMetadata } from './validation-metadata-cache';

class Base {
  @IsInt()
  id!: number;
}

class Child extends Base {
  @Min(1)
  count!: number;
}

describe('memoizeValidationMetadata', () => {
  beforeAll(() => memoizeValidationMetadata());

  it('looks a class up once: the same constraints (own and inherited) on every later validation', () => {
    const storage = getMetadataStorage();
    const first = storage.getTargetValidationMetadatas(Child, '', false, false);
    expect(first.map((m) => m.propertyName).sort()).toEqual(['count', 'id']);
    expect(storage.getTargetValidationMetadatas(Child, '', false, false)).toBe(first);
    expect(storage.groupByPropertyName(first)).toBe(storage.groupByPropertyName(first));
  });

  it('validates as before, valid and invalid alike, any number of times', () => {
    for (let i = 0; i < 3; i += 1) {
      expect(validateSync(Object.assign(new Child(), { id: 1, count: 2 }))).toEqual([]);
      const errors = validateSync(Object.assign(new Child(), { id: 1.5, count: 0 }));
      expect(errors.map((e) => e.property).sort()).toEqual(['count', 'id']);
    }
  });

  it('passes lookups with groups through untouched, and patches the storage only once', () => {
    const storage = getMetadataStorage();
    expect(storage.getTargetValidationMetadatas(Child, '', false, false, ['g'])).not.toBe(
      storage.getTargetValidationMetadatas(Child, '', false, false, ['g']),
    );
    const patched = storage.getTargetValidationMetadatas;
    memoizeValidationMetadata();
    expect(storage.getTargetValidationMetadatas).toBe(patched);
  });
});
