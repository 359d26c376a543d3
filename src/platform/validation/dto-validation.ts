import { ClassConstructor, plainToInstance } from 'class-transformer';
import { validateSync, ValidatorOptions } from 'class-validator';
import type { ViolationInput } from '../problem/app-exception';
import { memoizeValidationMetadata } from './validation-metadata-cache';
import { childPath, toViolations } from './violations';

// Every DTO validation goes through here: class-validator's metadata lookups are kept per class from now on.
memoizeValidationMetadata();

/** Parameter types that are plain values, not DTOs; everything else with a class type is validated. */
const NOT_DTOS: ReadonlySet<unknown> = new Set([String, Number, Boolean, Array, Object, Date, Buffer]);

export function isDtoClass(metatype: unknown): metatype is ClassConstructor<object> {
  return typeof metatype === 'function' && !NOT_DTOS.has(metatype);
}

/**
 * Unknown fields are violations (UNKNOWN_FIELD) at any depth. `forbidUnknownValues` stays off: with the
 * whitelist on, an object of an undecorated class can carry no field anyway, and an empty DTO class (a body
 * that must be `{}`) stays usable.
 */
const VALIDATOR_OPTIONS: ValidatorOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: false,
  // target and value stay in the errors (the violation mapper reads them); they never reach a response.
  validationError: { target: true, value: true },
};

export type DtoOutcome<T> = { ok: true; value: T } | { ok: false; violations: ViolationInput[] };

/**
 * Turns a plain input into the DTO (class-transformer: `@Type`, `@ToArray`, …) and validates it
 * (class-validator), reporting every invalid field at once with `root` prefixing each path. Synchronous:
 * no constraint of this service is asynchronous.
 */
export function validateDto<T extends object>(
  metatype: ClassConstructor<T>,
  input: unknown,
  root = '',
): DtoOutcome<T> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, violations: [{ field: root, code: 'INVALID_TYPE', args: { type: 'object' } }] };
  }
  const dto = plainToInstance(metatype, input);
  const reported = toViolations(validateSync(dto, VALIDATOR_OPTIONS), root);
  const fields = new Set(reported.map((v) => v.field));
  // One violation per field: a field already reported keeps its own.
  const violations = [
    ...reported,
    ...nulCharacterViolations(input, root).filter((v) => !fields.has(v.field)),
  ];
  return violations.length > 0 ? { ok: false, violations } : { ok: true, value: dto };
}

/**
 * Strings holding U+0000, wherever they are: PostgreSQL text cannot store the character, so letting one
 * through would fail the statement (a 500) instead of naming the field. Bodies are at most 32 levels deep
 * (the JSON parser refuses deeper ones), so the walk is bounded.
 */
function nulCharacterViolations(value: unknown, path: string): ViolationInput[] {
  if (typeof value === 'string') {
    return value.includes('\u0000')
      ? [{ field: path, code: 'INVALID_FORMAT', args: { format: 'text without U+0000' } }]
      : [];
  }
  if (Array.isArray(value)) {
    return value.flatMap((item, i) => nulCharacterViolations(item, childPath(path, String(i), true)));
  }
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, item]) =>
      nulCharacterViolations(item, childPath(path, key, false)),
    );
  }
  return [];
}
