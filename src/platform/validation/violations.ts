import { getMetadataStorage, ValidationError, ValidationTypes } from 'class-validator';
import { TranslationArgs, ViolationInput } from '../problem/app-exception';
import { VIOLATION_CODES, ViolationCode } from '../problem/error-codes';

/** One failed constraint of one field, with the facts its violation code and arguments are derived from. */
interface ConstraintFailure {
  /** The constraint's key in `ValidationError.constraints`, e.g. `min`, `isUuid`, `whitelistValidation`. */
  name: string;
  /** The rejected value (an array for `{ each: true }` constraints). */
  value: unknown;
  /** The decorator's arguments from class-validator's metadata storage, e.g. `[1]` for `@Min(1)`. */
  constraints: readonly unknown[];
  /** Whether the decorator validates each element (`{ each: true }`). */
  each: boolean;
  /** The decorator's `context` option; its string and number members override the message arguments. */
  context?: Record<string, unknown>;
}

interface MappedViolation {
  code: ViolationCode;
  args?: TranslationArgs;
  /** Set when a non-type constraint (`@Min`) found the type wrong: an explicit type constraint wins over it. */
  typeInferred?: true;
}

type ViolationRule = (failure: ConstraintFailure) => MappedViolation;

const required: ViolationRule = () => ({ code: 'REQUIRED' });
const invalidValue: ViolationRule = () => ({ code: 'INVALID_VALUE' });
const invalidType =
  (type: string): ViolationRule =>
  () => ({ code: 'INVALID_TYPE', args: { type } });
const invalidFormat =
  (format: string): ViolationRule =>
  () => ({ code: 'INVALID_FORMAT', args: { format } });

/** The values a constraint judged: the elements for `{ each: true }`, else the value itself. */
function judgedValues(failure: ConstraintFailure): unknown[] {
  return failure.each && Array.isArray(failure.value) ? failure.value : [failure.value];
}

function numberArg(value: unknown): number | string {
  return typeof value === 'number' || typeof value === 'string' ? value : String(value);
}

/** A bound on numbers; a value of another type violates the type first. */
const numberBound =
  (code: 'MIN' | 'MAX', arg: 'min' | 'max'): ViolationRule =>
  (failure) =>
    judgedValues(failure).every((value) => typeof value === 'number')
      ? { code, args: { [arg]: numberArg(failure.constraints[0]) } }
      : { code: 'INVALID_TYPE', args: { type: 'number' }, typeInferred: true };

/** String length bounds (`@MinLength`, `@MaxLength`, `@Length(min, max)`); a non-string violates the type. */
function lengthViolation(failure: ConstraintFailure, min: unknown, max: unknown): MappedViolation {
  const values = judgedValues(failure);
  if (!values.every((value) => typeof value === 'string')) {
    return { code: 'INVALID_TYPE', args: { type: 'string' }, typeInferred: true };
  }
  const tooShort = typeof min === 'number' && values.some((value) => (value as string).length < min);
  return tooShort || max === undefined
    ? { code: 'MIN_LENGTH', args: { min: numberArg(min) } }
    : { code: 'MAX_LENGTH', args: { max: numberArg(max) } };
}

/** List size bounds; a non-list violates the type. */
const itemsBound =
  (code: 'MIN_ITEMS' | 'MAX_ITEMS', arg: 'min' | 'max', bound?: number): ViolationRule =>
  (failure) =>
    Array.isArray(failure.value)
      ? { code, args: { [arg]: numberArg(bound ?? failure.constraints[0]) } }
      : { code: 'INVALID_TYPE', args: { type: 'array' }, typeInferred: true };

/** `@IsNumber({ maxDecimalPlaces: 2 })` → `0.00`: the notation names the rule in any language. */
function decimalsFormat(options: unknown): string {
  const places = (options as { maxDecimalPlaces?: number } | undefined)?.maxDecimalPlaces ?? 0;
  return places > 0 ? `0.${'0'.repeat(places)}` : '0';
}

function patternFormat(failure: ConstraintFailure): MappedViolation {
  const [pattern] = failure.constraints;
  const format = pattern instanceof RegExp ? pattern.source : String(pattern);
  return { code: 'INVALID_FORMAT', args: { format } };
}

/**
 * class-validator constraint name → violation code and message arguments (docs/decisions/0019-validation.md).
 * Arguments come from the decorator's metadata, never from class-validator's English messages.
 */
const RULES: Record<string, ViolationRule> = {
  [ValidationTypes.IS_DEFINED]: required,
  isNotEmpty: required,
  [ValidationTypes.WHITELIST]: () => ({ code: 'UNKNOWN_FIELD' }),
  // A non-object where a nested DTO (or a list of them) is expected.
  [ValidationTypes.NESTED_VALIDATION]: (failure) =>
    invalidType(failure.each && !Array.isArray(failure.value) ? 'array' : 'object')(failure),
  isInt: invalidType('integer'),
  // A number that only breaks the decimals rule (`@IsNumber({ maxDecimalPlaces })`) is a format problem.
  isNumber: (failure) =>
    judgedValues(failure).every((value) => typeof value === 'number' && Number.isFinite(value))
      ? { code: 'INVALID_FORMAT', args: { format: decimalsFormat(failure.constraints[0]) } }
      : invalidType('number')(failure),
  isString: invalidType('string'),
  isBoolean: invalidType('boolean'),
  isArray: invalidType('array'),
  isObject: invalidType('object'),
  isUuid: invalidFormat('uuid'),
  isEmail: invalidFormat('email'),
  isIso8601: invalidFormat('ISO 8601'),
  isDateString: invalidFormat('ISO 8601'),
  matches: patternFormat,
  isIn: invalidValue,
  isEnum: invalidValue,
  min: numberBound('MIN', 'min'),
  max: numberBound('MAX', 'max'),
  minLength: (failure) => lengthViolation(failure, failure.constraints[0], undefined),
  maxLength: (failure) => lengthViolation(failure, 0, failure.constraints[0]),
  isLength: (failure) => lengthViolation(failure, failure.constraints[0], failure.constraints[1]),
  arrayMinSize: itemsBound('MIN_ITEMS', 'min'),
  arrayMaxSize: itemsBound('MAX_ITEMS', 'max'),
  arrayNotEmpty: itemsBound('MIN_ITEMS', 'min', 1),
};

const REGISTERED_VIOLATION_CODES: ReadonlySet<string> = new Set(VIOLATION_CODES);

/** `readOnly` → `READ_ONLY`, `invalidRange` → `INVALID_RANGE`. */
function upperSnake(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase();
}

/** String and number members of a decorator's `context`, which override the derived message arguments. */
function contextArgs(context: Record<string, unknown> | undefined): TranslationArgs {
  const args: TranslationArgs = {};
  for (const [key, value] of Object.entries(context ?? {})) {
    if (typeof value === 'string' || typeof value === 'number') args[key] = value;
  }
  return args;
}

/**
 * The violation of one failed constraint. An absent field is REQUIRED whatever constraint noticed it; a
 * custom constraint maps to its upper-snake name when that is a registered violation code (`@ReadOnly()`
 * → READ_ONLY), else to INVALID_VALUE.
 */
function violationOf(failure: ConstraintFailure): MappedViolation {
  const rule: ViolationRule | undefined =
    failure.value === undefined && failure.name !== ValidationTypes.WHITELIST
      ? required
      : RULES[failure.name];
  const mapped = rule?.(failure) ?? customViolation(failure.name);
  const overrides = contextArgs(failure.context);
  if (Object.keys(overrides).length === 0) return mapped;
  return { ...mapped, args: { ...mapped.args, ...overrides } };
}

function customViolation(name: string): MappedViolation {
  const code = upperSnake(name);
  return REGISTERED_VIOLATION_CODES.has(code) ? { code: code as ViolationCode } : { code: 'INVALID_VALUE' };
}

/** Lower ranks are more fundamental: a field with several failures reports only its most fundamental one. */
const RANKS: Partial<Record<ViolationCode, number>> = { REQUIRED: 0, INVALID_TYPE: 1, INVALID_FORMAT: 2 };
const OTHER_RANK = 3;

function rank(violation: MappedViolation): number {
  return (RANKS[violation.code] ?? OTHER_RANK) + (violation.typeInferred ? 0.5 : 0);
}

/** `items` + `0` → `items[0]` when the parent is a list; `deliveryAddress` + `zipCode` → `deliveryAddress.zipCode`. */
export function childPath(parentPath: string, property: string | undefined, parentIsList: boolean): string {
  if (property === undefined || property === '') return parentPath;
  if (parentIsList) return `${parentPath}[${property}]`;
  return parentPath ? `${parentPath}.${property}` : property;
}

interface ConstraintMetadata {
  each: boolean;
  constraints: readonly unknown[];
  context?: Record<string, unknown>;
}

/** The decorator metadata behind the constraint `name` on `property` of the validated object's class. */
function constraintMetadata(target: unknown, property: string, name: string): ConstraintMetadata {
  const fallback: ConstraintMetadata = { each: false, constraints: [] };
  if (typeof target !== 'object' || target === null) return fallback;
  const storage = getMetadataStorage();
  const metadata = storage
    .getTargetValidationMetadatas(target.constructor, '', true, false)
    .find((candidate) => {
      if (candidate.propertyName !== property) return false;
      if (candidate.type !== ValidationTypes.CUSTOM_VALIDATION) return candidate.type === name;
      // Custom constraints are keyed by their constraint class's name, as class-validator keys the error.
      const [constraint] = storage.getTargetValidatorConstraints(candidate.constraintCls);
      return (constraint?.name ?? candidate.type) === name;
    });
  if (!metadata) return fallback;
  // The context comes from the metadata: class-validator leaves it out of the error when the message is ''.
  const context = metadata.context as Record<string, unknown> | undefined;
  return { each: metadata.each ?? false, constraints: metadata.constraints ?? [], context };
}

function fieldViolation(error: ValidationError, field: string): ViolationInput | undefined {
  const failures = Object.keys(error.constraints ?? {}).map((name): MappedViolation => {
    const metadata = constraintMetadata(error.target, error.property, name);
    return violationOf({ name, value: error.value, ...metadata });
  });
  if (failures.length === 0) return undefined;
  // Stable sort: among failures of one rank the first reported wins.
  const [{ code, args }] = [...failures].sort((a, b) => rank(a) - rank(b));
  return args ? { field, code, args } : { field, code };
}

/**
 * Flattens class-validator's error tree into one violation per invalid field, every field at once, with
 * dotted paths and bracketed list indexes (`items[0].quantity`). `root` prefixes every path (e.g. the
 * name of a single `@Body('address')` property).
 */
export function toViolations(errors: readonly ValidationError[], root = ''): ViolationInput[] {
  const violations: ViolationInput[] = [];
  const visit = (level: readonly ValidationError[], parentPath: string, parentIsList: boolean): void => {
    for (const error of level) {
      const path = childPath(parentPath, error.property, parentIsList);
      const violation = fieldViolation(error, path);
      if (violation) violations.push(violation);
      visit(error.children ?? [], path, Array.isArray(error.value));
    }
  };
  visit(errors, root, false);
  return violations;
}
