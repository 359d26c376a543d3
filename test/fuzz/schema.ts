import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/** A JSON Schema node of the OpenAPI document, read loosely: the fuzz walks whatever the document holds. */
export type Schema = Record<string, unknown>;

/** The parts of the served OpenAPI document the fuzz reads. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, Schema> };
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const COMPONENT = '#/components/schemas/';

/** `schema` with its `$ref` (and a nullable `allOf: [$ref]` wrapper's) followed. */
export function resolve(document: OpenApiDocument, schema: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref === 'string')
    return resolve(document, document.components.schemas[ref.slice(COMPONENT.length)]);
  const allOf = schema.allOf;
  if (Array.isArray(allOf) && allOf.length === 1 && isObject(allOf[0])) {
    const { allOf: _wrapped, ...rest } = schema;
    return { ...rest, ...resolve(document, allOf[0]), ...(schema.nullable ? { nullable: true } : {}) };
  }
  return schema;
}

/** Deep copy with `transform` applied to every schema object, children first. */
function mapSchemas(value: unknown, transform: (schema: Schema) => Schema): unknown {
  if (Array.isArray(value)) return value.map((item) => mapSchemas(item, transform));
  if (!isObject(value)) return value;
  const copy: Schema = {};
  for (const [key, child] of Object.entries(value)) {
    // Examples and enums are data, not schemas.
    copy[key] =
      key === 'example' || key === 'enum' || key === 'default' ? child : mapSchemas(child, transform);
  }
  return transform(copy);
}

/** Problem Details may carry extension members (RFC 9457 §3.2): the one schema left open. */
const OPEN_SCHEMAS = new Set(['Problem']);

/**
 * OpenAPI 3.0 → JSON Schema for ajv: `nullable` becomes a `null` alternative (ajv's own `nullable` does not
 * reach through `allOf`); for requests, a `readOnly` property is one a client must not send; for responses,
 * an object lists every member it has (an undocumented member is a gap in the document, which clients
 * would ignore but never learn of).
 */
function toJsonSchema(direction: 'request' | 'response', open = false) {
  return (schema: Schema): Schema => {
    let result = schema;
    if (direction === 'request' && result.readOnly === true) return { not: {} };
    if (
      direction === 'response' &&
      !open &&
      isObject(result.properties) &&
      result.additionalProperties === undefined
    ) {
      result = { ...result, additionalProperties: false };
    }
    if (typeof result.$ref === 'string') {
      result = { ...result, $ref: `doc${result.$ref}` };
    }
    // multipleOf 0.01 on binary floats goes wrong at large magnitudes (9999999999.97 / 0.01): a decimal
    // step is checked on the number's decimal text, as the service checks it.
    if (typeof result.multipleOf === 'number' && Number.isInteger(-Math.log10(result.multipleOf))) {
      const { multipleOf, ...rest } = result;
      result = { ...rest, decimals: Math.round(-Math.log10(multipleOf)) };
    }
    if (result.nullable === true) {
      const { nullable: _nullable, ...rest } = result;
      result = { anyOf: [{ type: 'null' }, rest] };
    }
    return result;
  };
}

/** Validators of request and response bodies and of single values against the document's schemas. */
export class SchemaValidators {
  private readonly requests: Ajv;
  private readonly responses: Ajv;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(document: OpenApiDocument) {
    this.requests = this.ajvFor(document, 'request');
    this.responses = this.ajvFor(document, 'response');
  }

  private ajvFor(document: OpenApiDocument, direction: 'request' | 'response'): Ajv {
    const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
    ajv.addFormat('binary', true);
    ajv.addKeyword({
      keyword: 'decimals',
      type: 'number',
      schemaType: 'number',
      error: { message: 'has more decimals than allowed' },
      validate: (decimals: number, value: number) => decimalsOf(value) <= decimals,
    });
    const schemas = Object.fromEntries(
      Object.entries(document.components.schemas).map(([name, schema]) => [
        name,
        mapSchemas(schema, toJsonSchema(direction, OPEN_SCHEMAS.has(name))),
      ]),
    );
    ajv.addSchema({ $id: 'doc', components: { schemas } }, 'doc');
    return ajv;
  }

  /** Validates `value` against `schema` (a node of the document) as a request or a response carries it. */
  validate(direction: 'request' | 'response', schema: Schema, value: unknown): string[] {
    const key = `${direction}:${JSON.stringify(schema)}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      const ajv = direction === 'request' ? this.requests : this.responses;
      validate = ajv.compile(mapSchemas(schema, toJsonSchema(direction)) as Schema);
      this.compiled.set(key, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map((error) =>
      `${error.instancePath || '/'} ${error.message ?? ''}`.trim(),
    );
  }
}

/** Decimals of a number as JSON writes it (`1e-7` has 7). */
function decimalsOf(value: number): number {
  const [mantissa, exponent = '0'] = String(value).toLowerCase().split('e');
  const fraction = mantissa.split('.')[1]?.length ?? 0;
  return Math.max(0, fraction - Number(exponent));
}
