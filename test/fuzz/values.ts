import * as fc from 'fast-check';
import { isObject, type OpenApiDocument, resolve, type Schema } from './schema';

/**
 * Arbitraries of JSON values derived from a schema of the OpenAPI document: values the schema takes (near
 * its bounds as often as inside them) and values it refuses, each with what was broken. Whether a request
 * is valid is decided by the schema validator afterwards, never by these generators' intent.
 */
export interface ValueContext {
  document: OpenApiDocument;
  /** Values the running service knows for a field or parameter of this name (ids it issued), if any. */
  known(name: string): string[];
}

/** A value a schema refuses, where (a field path inside it, `items[1].quantity`) and how it breaks it. */
export interface Mutation {
  value: unknown;
  path: string;
  what: string;
}

/** `items` + `[1].quantity` → `items[1].quantity`; `address` + `zipCode` → `address.zipCode`. */
export function joinPath(parent: string, child: string): string {
  if (child === '') return parent;
  if (parent === '') return child;
  return child.startsWith('[') ? `${parent}${child}` : `${parent}.${child}`;
}

const MAX_GENERATED_LIST = 4;

const codePoints = (value: string): number => [...value].length;

function regexOf(schema: Schema): RegExp | undefined {
  return typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : undefined;
}

function lengthBounds(schema: Schema): { min: number; max: number } {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : 64;
  return { min, max };
}

function withinLength(value: string, { min, max }: { min: number; max: number }): boolean {
  const length = codePoints(value);
  return length >= min && length <= max;
}

/** The ids the service issued under `name`, mixed with fresh ones (an unknown id is a valid one too). */
function knownOr(
  ctx: ValueContext,
  name: string | undefined,
  other: fc.Arbitrary<string>,
): fc.Arbitrary<string> {
  const known = name ? ctx.known(name) : [];
  return known.length > 0
    ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: other })
    : other;
}

function validString(ctx: ValueContext, schema: Schema, name?: string): fc.Arbitrary<string> {
  const bounds = lengthBounds(schema);
  if (schema.format === 'uuid') return knownOr(ctx, name, fc.uuid());
  if (schema.format === 'date') {
    return fc
      .date({
        min: new Date('2020-01-01T00:00:00Z'),
        max: new Date('2030-12-31T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((date) => date.toISOString().slice(0, 10));
  }
  if (schema.format === 'email') {
    const word = fc.stringMatching(/^[a-z]{1,12}$/);
    return fc
      .tuple(word, word)
      .map(([user, host]) => `${user}@${host}.example`)
      .filter((value) => withinLength(value, bounds));
  }
  const pattern = regexOf(schema);
  if (!pattern) return fc.string({ minLength: bounds.min, maxLength: Math.min(bounds.max, 40) });
  // Opaque values the service issued (cursors) are the ones worth passing back.
  if (name && ctx.known(name).length > 0) {
    return fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...ctx.known(name)) },
      { weight: 1, arbitrary: fc.constant('') },
    );
  }
  const candidates: Array<fc.Arbitrary<string>> = [
    fc.stringMatching(pattern).filter((value) => withinLength(value, bounds)),
  ];
  // Any text, not only ASCII (combining marks, emoji, variation selectors), where the pattern allows it.
  if (pattern.test('text é 😀')) {
    candidates.push(
      fc
        .string({ unit: 'grapheme', minLength: bounds.min, maxLength: Math.min(bounds.max, 30) })
        .filter((value) => pattern.test(value) && withinLength(value, bounds)),
    );
  }
  for (const edge of [
    'a'.repeat(bounds.max),
    'a'.repeat(Math.max(bounds.min, 1)),
    '\u2764\uFE0F'.repeat(Math.floor(bounds.max / 2)),
  ]) {
    if (pattern.test(edge) && withinLength(edge, bounds)) candidates.push(fc.constant(edge));
  }
  return fc.oneof(...candidates);
}

function integerBounds(schema: Schema): { min: number; max: number } {
  return {
    min: typeof schema.minimum === 'number' ? schema.minimum : -(2 ** 31),
    max: typeof schema.maximum === 'number' ? schema.maximum : 2 ** 31 - 1,
  };
}

function validInteger(schema: Schema): fc.Arbitrary<number> {
  const { min, max } = integerBounds(schema);
  return fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min, max: Math.min(max, min + 20) }) },
    { weight: 2, arbitrary: fc.integer({ min, max }) },
    { weight: 1, arbitrary: fc.constantFrom(min, max) },
  );
}

function validNumber(schema: Schema): fc.Arbitrary<number> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : -1e9;
  const max = typeof schema.maximum === 'number' ? schema.maximum : 1e9;
  // Without a step: cents, which any notation writes as plain decimals (a query has no room for `1e-7`).
  const step = typeof schema.multipleOf === 'number' ? schema.multipleOf : 0.01;
  const decimals = Math.round(-Math.log10(step));
  const scale = 10 ** decimals;
  const low = Math.ceil(min * scale);
  const high = Math.floor(max * scale);
  return fc
    .oneof(
      { weight: 3, arbitrary: fc.integer({ min: low, max: Math.min(high, low + 100_000) }) },
      { weight: 1, arbitrary: fc.integer({ min: low, max: high }) },
      { weight: 1, arbitrary: fc.constantFrom(low, high) },
    )
    .map((units) => Number((units / scale).toFixed(decimals)));
}

function validArray(ctx: ValueContext, schema: Schema, name?: string): fc.Arbitrary<unknown[]> {
  const items = isObject(schema.items) ? schema.items : {};
  const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : MAX_GENERATED_LIST;
  const element = validValue(ctx, items, name ? singular(name) : undefined);
  const usual = fc.array(element, {
    minLength: minItems,
    maxLength: Math.max(minItems, Math.min(maxItems, MAX_GENERATED_LIST)),
  });
  // Now and then the longest list the schema allows.
  return maxItems > MAX_GENERATED_LIST
    ? fc.oneof(
        { weight: 19, arbitrary: usual },
        { weight: 1, arbitrary: fc.array(element, { minLength: maxItems, maxLength: maxItems }) },
      )
    : usual;
}

/** `customerIds` → `customerId`: the elements of a list of ids are ids of that name. */
const singular = (name: string): string => name.replace(/s$/, '');

function properties(schema: Schema): Array<[string, Schema]> {
  return Object.entries(isObject(schema.properties) ? schema.properties : {}).filter(
    (entry): entry is [string, Schema] => isObject(entry[1]),
  );
}

function requiredOf(schema: Schema): string[] {
  return Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === 'string')
    : [];
}

function validObject(ctx: ValueContext, schema: Schema): fc.Arbitrary<Record<string, unknown>> {
  const writable = properties(schema).filter(([, property]) => property.readOnly !== true);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of writable) record[name] = validValue(ctx, property, name);
  const required = requiredOf(schema).filter((name) => name in record);
  return fc.record(record, { requiredKeys: required });
}

/** A value `schema` takes. `name` is the field or parameter it is for (ids come from the service). */
export function validValue(ctx: ValueContext, raw: Schema, name?: string): fc.Arbitrary<unknown> {
  const schema = resolve(ctx.document, raw);
  const value = validNonNull(ctx, schema, name);
  return schema.nullable === true
    ? fc.oneof({ weight: 4, arbitrary: value }, { weight: 1, arbitrary: fc.constant(null) })
    : value;
}

function validNonNull(ctx: ValueContext, schema: Schema, name?: string): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  if (Array.isArray(schema.oneOf)) {
    return fc.oneof(...schema.oneOf.filter(isObject).map((option) => validValue(ctx, option, name)));
  }
  switch (schema.type) {
    case 'string':
      return validString(ctx, schema, name);
    case 'integer':
      return validInteger(schema);
    case 'number':
      return validNumber(schema);
    case 'boolean':
      return fc.boolean();
    case 'array':
      return validArray(ctx, schema, name);
    default:
      return validObject(ctx, schema);
  }
}

const mutation =
  (what: string) =>
  (value: unknown): Mutation => ({ value, path: '', what });

function wrongTypes(schema: Schema): unknown[] {
  switch (schema.type) {
    case 'string':
      return [12345, true, { value: 'x' }, ['x']];
    case 'integer':
      return ['12', true, 1.5, { value: 1 }];
    case 'number':
      return ['12.5', false, [1]];
    case 'boolean':
      return ['true', 1];
    case 'array':
      return [{ items: [] }, 'x', 7];
    default:
      return [['x'], 'x', 7];
  }
}

function invalidString(schema: Schema): Array<fc.Arbitrary<Mutation>> {
  const { min, max } = lengthBounds(schema);
  const out: Array<fc.Arbitrary<Mutation>> = [];
  if (typeof schema.maxLength === 'number') {
    out.push(
      fc
        .integer({ min: 1, max: 64 })
        .map((extra) => mutation('longer than maxLength')('a'.repeat(max + extra))),
    );
  }
  if (min > 0) out.push(fc.constant(mutation('shorter than minLength')('')));
  const pattern = regexOf(schema);
  if (pattern) {
    out.push(
      fc
        .constantFrom('a\u0001b', 'line\nbreak', 'tab\tand\u007f', '\u0000', '%%%', 'x y', 'ÄÖ')
        .filter((value) => !pattern.test(value) && value.length <= max)
        .map(mutation('does not match the pattern')),
    );
  }
  if (schema.format === 'uuid')
    out.push(
      fc
        .constantFrom('not-a-uuid', '12345', 'zzzzzzzz-zzzz-4zzz-8zzz-zzzzzzzzzzzz')
        .map(mutation('not a uuid')),
    );
  if (schema.format === 'date')
    out.push(
      fc.constantFrom('2024-02-30', '2024-1-01', '01.02.2024', '2024-13-01').map(mutation('not a date')),
    );
  if (schema.format === 'email')
    out.push(fc.constantFrom('no-at-sign', '@example.com').map(mutation('not an e-mail')));
  return out;
}

function invalidNumber(schema: Schema): Array<fc.Arbitrary<Mutation>> {
  const out: Array<fc.Arbitrary<Mutation>> = [];
  if (typeof schema.minimum === 'number') {
    out.push(fc.constant(mutation('below minimum')(schema.minimum - 1)));
  }
  if (typeof schema.maximum === 'number') {
    out.push(fc.constantFrom(schema.maximum + 1, schema.maximum * 10 + 7).map(mutation('above maximum')));
  }
  if (schema.type === 'integer') {
    const { min } = integerBounds(schema);
    out.push(fc.constant(mutation('not a whole number')(min + 0.5)));
  }
  if (typeof schema.multipleOf === 'number') {
    const base = typeof schema.minimum === 'number' ? schema.minimum : 0;
    out.push(fc.constant(mutation('more decimals than multipleOf')(base + schema.multipleOf / 10)));
  }
  return out;
}

function invalidArray(ctx: ValueContext, schema: Schema, name?: string): Array<fc.Arbitrary<Mutation>> {
  const items = isObject(schema.items) ? schema.items : {};
  const element = validValue(ctx, items, name ? singular(name) : undefined);
  const out: Array<fc.Arbitrary<Mutation>> = [];
  if (typeof schema.maxItems === 'number') {
    const too = schema.maxItems + 1;
    out.push(fc.array(element, { minLength: too, maxLength: too }).map(mutation('more items than maxItems')));
  }
  if (typeof schema.minItems === 'number' && schema.minItems > 0) {
    out.push(fc.constant(mutation('fewer items than minItems')([])));
  }
  out.push(
    fc
      .tuple(fc.array(element, { maxLength: 2 }), invalidValue(ctx, items, name ? singular(name) : undefined))
      .map(([valid, broken]) => ({
        value: [...valid, broken.value],
        path: joinPath(`[${valid.length}]`, broken.path),
        what: broken.what,
      })),
  );
  return out;
}

function invalidObject(ctx: ValueContext, schema: Schema): Array<fc.Arbitrary<Mutation>> {
  const base = validObject(ctx, schema);
  const out: Array<fc.Arbitrary<Mutation>> = [];
  const required = requiredOf(schema);
  if (required.length > 0) {
    out.push(
      fc.tuple(base, fc.constantFrom(...required)).map(([value, missing]) => {
        const { [missing]: _dropped, ...rest } = value;
        return { value: rest, path: missing, what: 'required, missing' };
      }),
    );
  }
  out.push(
    base.map((value) => ({
      value: { ...value, unexpectedField: 1 },
      path: 'unexpectedField',
      what: 'not declared',
    })),
  );
  const readOnly = properties(schema).filter(([, property]) => property.readOnly === true);
  if (readOnly.length > 0) {
    out.push(
      fc
        .tuple(base, fc.constantFrom(...readOnly.map(([name]) => name)))
        .map(([value, name]) => ({ value: { ...value, [name]: 'x' }, path: name, what: 'read-only, sent' })),
    );
  }
  const writable = properties(schema).filter(([, property]) => property.readOnly !== true);
  if (writable.length > 0) {
    out.push(
      fc.constantFrom(...writable).chain(([name, property]) =>
        fc.tuple(base, invalidValue(ctx, property, name)).map(([value, broken]) => ({
          value: { ...value, [name]: broken.value },
          path: joinPath(name, broken.path),
          what: broken.what,
        })),
      ),
    );
  }
  return out;
}

/** A value `schema` refuses, with where and how; the caller still asks the validator to be sure. */
export function invalidValue(ctx: ValueContext, raw: Schema, name?: string): fc.Arbitrary<Mutation> {
  const schema = resolve(ctx.document, raw);
  const strategies: Array<fc.Arbitrary<Mutation>> = [
    fc
      .constantFrom(...wrongTypes(schema))
      .map(mutation(`wrong type (not ${String(schema.type ?? 'object')})`)),
  ];
  if (schema.nullable !== true) strategies.push(fc.constant(mutation('null')(null)));
  if (Array.isArray(schema.enum)) {
    strategies.push(fc.constantFrom('NOT_A_VALUE', 'created', '').map(mutation('not an enum value')));
  } else if (schema.type === 'string') {
    strategies.push(...invalidString(schema));
  } else if (schema.type === 'integer' || schema.type === 'number') {
    strategies.push(...invalidNumber(schema));
  } else if (schema.type === 'array') {
    strategies.push(...invalidArray(ctx, schema, name));
  } else if (schema.type === 'object' || isObject(schema.properties)) {
    strategies.push(...invalidObject(ctx, schema));
  }
  return fc.oneof(...strategies);
}
