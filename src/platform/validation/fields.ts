import { applyDecorators, Type as ClassType } from '@nestjs/common';
import {
  ApiProperty,
  ApiPropertyOptional,
  type ApiPropertyOptions,
  type SchemaObject,
} from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsEmail,
  IsIn,
  IsInt,
  IsISO8601,
  IsNumber,
  IsObject,
  IsOptional,
  IsUUID,
  Matches,
  Max,
  Min,
  registerDecorator,
  ValidateIf,
  ValidateNested,
  type ValidationOptions,
} from 'class-validator';

/**
 * The field vocabulary of request and response DTOs: each kind is an OpenAPI schema and the class-validator
 * constraints that enforce exactly that schema, made from the same numbers, so the document can never
 * declare a bound the server does not enforce (nor the reverse). `@RequestField(kind)` declares and
 * validates a request field, `@ResponseField(kind)` declares a response field with the same bounds; the
 * OWASP rules (.spectral.yaml) want every string, integer and array bounded, and the fuzz suite
 * (test/fuzz/) checks both directions against the served document.
 */
export interface FieldKind {
  /** The OpenAPI schema: type, format, bounds, pattern or enum. */
  readonly schema: ApiPropertyOptions;
  /** The decorators enforcing `schema`: on the value, or on each element of a list. */
  constraints(each: boolean): PropertyDecorator[];
}

/** A kind whose schema is plain JSON Schema (no class or enum name), usable where a raw schema is needed. */
export interface PlainFieldKind extends FieldKind {
  readonly schema: ApiPropertyOptions & {
    type: 'string' | 'integer' | 'number' | 'boolean';
    pattern?: string;
    maxLength?: number;
  };
}

/** The plain JSON Schema of `kind`, where a schema object is needed (headers, multipart parts). */
export function schemaOf(kind: PlainFieldKind): SchemaObject {
  return { ...kind.schema } as SchemaObject;
}

export const INT32_MAX = 2_147_483_647;
const INT32_MIN = -2_147_483_648;

/** `int32` when the bounds fit, else `int64` (OWASP: every integer says which). */
function integerFormat(min: number, max: number): 'int32' | 'int64' {
  return min >= INT32_MIN && max <= INT32_MAX ? 'int32' : 'int64';
}

// Control characters are written as ranges, not \p{Cc}: a JSON Schema pattern may be run without the u flag.
/** Text on one line: no control characters (C0, DEL, C1), so none can reach logs, CSV cells or headers. */
// eslint-disable-next-line no-control-regex -- excluding control characters is the point
export const SINGLE_LINE_TEXT = /^[^\u0000-\u001F\u007F-\u009F]*$/;
/** Text that may span lines: tab, line feed and carriage return besides what SINGLE_LINE_TEXT allows. */
// eslint-disable-next-line no-control-regex -- excluding control characters is the point
export const MULTI_LINE_TEXT = /^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*$/;

/**
 * A bound on string length in code points, as JSON Schema's minLength/maxLength count them (class-validator's
 * Length does not count U+FE0E/U+FE0F). Registered under the names of class-validator's own constraints so
 * the violation mapping (violations.ts) reports MIN_LENGTH / MAX_LENGTH with the bound.
 */
function CodePointLength(
  bound: 'minLength' | 'maxLength',
  limit: number,
  options: ValidationOptions,
): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: bound,
      target: target.constructor,
      propertyName: String(propertyName),
      constraints: [limit],
      options,
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string') return false;
          const length = [...value].length;
          return bound === 'minLength' ? length >= limit : length <= limit;
        },
      },
    });
}

function lengthConstraints(min: number, max: number, each: boolean): PropertyDecorator[] {
  return [
    ...(min > 0 ? [CodePointLength('minLength', min, { each })] : []),
    CodePointLength('maxLength', max, { each }),
  ];
}

/**
 * Free text of `min` to `max` characters (code points): one line (names, codes, numbers people type) unless
 * `multiline` (notes, reasons, descriptions). A wrong character is INVALID_FORMAT.
 */
export function text(options: {
  min: number;
  max: number;
  multiline?: boolean;
  example?: string;
}): PlainFieldKind {
  const pattern = options.multiline ? MULTI_LINE_TEXT : SINGLE_LINE_TEXT;
  const format = options.multiline ? 'text without control characters' : 'one line of text';
  return {
    schema: {
      type: 'string',
      ...(options.min > 0 ? { minLength: options.min } : {}),
      maxLength: options.max,
      pattern: pattern.source,
      ...(options.example !== undefined ? { example: options.example } : {}),
    },
    constraints: (each) => [
      ...lengthConstraints(options.min, options.max, each),
      Matches(pattern, { each, context: { format } }),
    ],
  };
}

/** A string of a fixed shape (`pattern`), at most `max` characters; `format` names it in violations. */
export function patterned(options: {
  pattern: RegExp;
  max: number;
  format: string;
  example?: string;
}): PlainFieldKind {
  return {
    schema: {
      type: 'string',
      maxLength: options.max,
      pattern: options.pattern.source,
      ...(options.example !== undefined ? { example: options.example } : {}),
    },
    constraints: (each) => [
      CodePointLength('maxLength', options.max, { each }),
      Matches(options.pattern, { each, context: { format: options.format } }),
    ],
  };
}

/** Length of a uuid in its canonical form, the only one accepted. */
export const UUID_LENGTH = 36;

/**
 * What IsUUID() takes (validator.js's `all`): versions 1 to 8 with the RFC 9562 variant, the nil and the max
 * uuid, in either case. The pattern says so where `format: uuid` alone would take any hex digits.
 */
const UUID_PATTERN =
  '^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|' +
  '00000000-0000-0000-0000-000000000000|[fF]{8}-[fF]{4}-[fF]{4}-[fF]{4}-[fF]{12})$';

/** A uuid (versions 1 to 8, either case): 36 characters. */
export function uuid(): PlainFieldKind {
  return {
    schema: {
      type: 'string',
      format: 'uuid',
      pattern: UUID_PATTERN,
      minLength: UUID_LENGTH,
      maxLength: UUID_LENGTH,
    },
    constraints: (each) => [IsUUID(undefined, { each })],
  };
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_FORMAT = { format: 'YYYY-MM-DD' };

/** A calendar date, `YYYY-MM-DD`, that exists. */
export function date(example?: string): PlainFieldKind {
  return {
    schema: { type: 'string', format: 'date', maxLength: 10, ...(example ? { example } : {}) },
    constraints: (each) => [
      Matches(DATE, { each, context: DATE_FORMAT }),
      IsISO8601({ strict: true }, { each, context: DATE_FORMAT }),
    ],
  };
}

/** Length of a served instant, `YYYY-MM-DDThh:mm:ssZ` (json-output.ts). */
const TIMESTAMP_LENGTH = 20;

/** A point in time as the service serves it (responses only: no request takes one). */
export function timestamp(): PlainFieldKind {
  return {
    schema: {
      type: 'string',
      format: 'date-time',
      maxLength: TIMESTAMP_LENGTH,
      example: '2026-01-31T12:00:00Z',
    },
    constraints: (each) => [IsISO8601({ strict: true }, { each })],
  };
}

/** A whole number from `min` to `max`, declared `int32` or `int64` by its range. */
export function integer(options: { min: number; max: number; example?: number }): PlainFieldKind {
  const { min, max } = options;
  return {
    schema: {
      type: 'integer',
      format: integerFormat(min, max),
      minimum: min,
      maximum: max,
      ...(options.example !== undefined ? { example: options.example } : {}),
    },
    constraints: (each) => [IsInt({ each }), Min(min, { each }), Max(max, { each })],
  };
}

/** A number from `min` to `max` with at most `decimals` decimals (money: 2). */
export function decimal(options: {
  min: number;
  max: number;
  decimals: number;
  example?: number;
}): PlainFieldKind {
  const { min, max, decimals } = options;
  return {
    schema: {
      type: 'number',
      minimum: min,
      maximum: max,
      multipleOf: 10 ** -decimals,
      ...(options.example !== undefined ? { example: options.example } : {}),
    },
    constraints: (each) => [
      IsNumber({ maxDecimalPlaces: decimals, allowNaN: false, allowInfinity: false }, { each }),
      Min(min, { each }),
      Max(max, { each }),
    ],
  };
}

/** Any number from `min` (no bound on decimals): a filter's amount, compared, never stored. */
export function number(options: { min: number; example?: number }): PlainFieldKind {
  return {
    schema: {
      type: 'number',
      minimum: options.min,
      ...(options.example !== undefined ? { example: options.example } : {}),
    },
    constraints: (each) => [
      IsNumber({ allowNaN: false, allowInfinity: false }, { each }),
      Min(options.min, { each }),
    ],
  };
}

export function boolean(): PlainFieldKind {
  return { schema: { type: 'boolean' }, constraints: (each) => [IsBoolean({ each })] };
}

/** An e-mail address of at most `max` characters. */
export function email(max: number): PlainFieldKind {
  return {
    schema: { type: 'string', format: 'email', maxLength: max },
    constraints: (each) => [IsEmail(undefined, { each }), CodePointLength('maxLength', max, { each })],
  };
}

/** Every enum `oneOf` made, by component name: the document builder declares each as a component. */
const NAMED_ENUMS = new Map<string, readonly string[]>();

/** The enum components of every `oneOf` kind, for the OpenAPI document's `components.schemas`. */
export function namedEnumSchemas(): Record<string, SchemaObject> {
  return Object.fromEntries(
    [...NAMED_ENUMS].map(([name, values]) => [name, { type: 'string', enum: [...values] }]),
  );
}

/** One of `values`, declared as the named enum component `name` (every enum of the document is named). */
export function oneOf(values: readonly string[], name: string): FieldKind {
  const known = NAMED_ENUMS.get(name);
  if (known && known.join() !== values.join()) {
    throw new Error(`enum ${name} is declared with two value lists: ${known.join()} and ${values.join()}`);
  }
  NAMED_ENUMS.set(name, [...values]);
  return {
    schema: { enum: [...values], enumName: name },
    constraints: (each) => [IsIn(values, { each })],
  };
}

/** An object of the DTO class `type`, validated field by field (violations name `<field>.<member>`). */
export function nested(type: ClassType<unknown>): FieldKind {
  return {
    schema: { type: () => type },
    constraints: (each) => [IsObject({ each }), ValidateNested({ each }), Type(() => type)],
  };
}

/** A list of `min` (default 0) to `max` elements of `kind` (OWASP: every array has maxItems). */
export function listOf(kind: FieldKind, options: { min?: number; max: number }): FieldKind {
  const min = options.min ?? 0;
  const counts = { ...(min > 0 ? { minItems: min } : {}), maxItems: options.max };
  return {
    schema: { ...listSchema(kind), ...counts } as ApiPropertyOptions,
    constraints: () => [
      IsArray(),
      ...(min > 0 ? [ArrayMinSize(min)] : []),
      ArrayMaxSize(options.max),
      ...kind.constraints(true),
    ],
  };
}

function listSchema(kind: FieldKind): Record<string, unknown> {
  const { schema } = kind;
  // Swagger moves a class into `items` itself. An enum list is written out (as a query parameter Swagger
  // would drop its maxItems); its component comes from namedEnumSchemas().
  if (typeof schema.type === 'function') return { ...schema, isArray: true };
  if ('enumName' in schema) {
    return { type: 'array', items: { $ref: `#/components/schemas/${schema.enumName}` } };
  }
  return { type: 'array', items: schema };
}

/**
 * Whether a request may leave the field out, and what `null` means:
 * - `required` (default): present and not null;
 * - `optional`: may be absent; `null` is no value of the field's type (INVALID_TYPE, …);
 * - `patch`: a merge patch of a required field: may be absent, `null` (which would remove it) is REQUIRED;
 * - `nullable`: a merge patch of an optional field: may be absent, `null` removes it (RFC 7396).
 */
export type Presence = 'required' | 'optional' | 'patch' | 'nullable';

export interface FieldOptions {
  presence?: Presence;
  description?: string;
  example?: unknown;
  default?: unknown;
}

const present = (_object: object, value: unknown): boolean => value !== undefined;

function presenceConstraints(presence: Presence): PropertyDecorator[] {
  switch (presence) {
    case 'required':
      return [IsDefined()];
    case 'optional':
      return [ValidateIf(present)];
    case 'patch':
      return [ValidateIf(present), IsDefined()];
    case 'nullable':
      return [IsOptional()];
  }
}

function documented(kind: FieldKind, options: FieldOptions, nullable: boolean): ApiPropertyOptions {
  return {
    ...kind.schema,
    ...(nullable ? { nullable: true } : {}),
    ...(options.description !== undefined ? { description: options.description } : {}),
    ...(options.example !== undefined ? { example: options.example } : {}),
    ...(options.default !== undefined ? { default: options.default } : {}),
  } as ApiPropertyOptions;
}

/**
 * A field of a request DTO (body or query): declares it in the OpenAPI document and validates it, both
 * from `kind`. Transformations that come before validation (`@Type`, `@ToArray`, query numbers) stay
 * separate decorators on the field.
 */
export function RequestField(kind: FieldKind, options: FieldOptions = {}): PropertyDecorator {
  const presence = options.presence ?? 'required';
  const schema = documented(kind, options, presence === 'nullable');
  return applyDecorators(
    presence === 'required' ? ApiProperty(schema) : ApiPropertyOptional(schema),
    ...presenceConstraints(presence),
    ...kind.constraints(false),
  );
}

/** A field of a response DTO, with the bounds of `kind` (what the server stores is what requests allowed). */
export function ResponseField(
  kind: FieldKind,
  options: Omit<FieldOptions, 'presence'> & { optional?: boolean } = {},
): PropertyDecorator {
  const schema = documented(kind, options, false);
  return options.optional ? ApiPropertyOptional(schema) : ApiProperty(schema);
}
