import * as fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { multipartBody, sampleFile, type FormPart, type SampleKind } from '../support/multipart';
import { isObject, type OpenApiDocument, resolve, type Schema, type SchemaValidators } from './schema';
import { invalidValue, joinPath, type Mutation, validValue, type ValueContext } from './values';
import type { CallerName, World } from './world';

/** A parameter of an operation, as the document declares it. */
export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Schema;
}

/** An operation of the served document. */
export interface Operation {
  operationId: string;
  method: string;
  path: string;
  parameters: Parameter[];
  body?: { mediaType: string; schema: Schema; required: boolean };
  /** Response objects by status (`200`, `4xx` ...). */
  responses: Record<string, Schema>;
}

/** Every operation of the document, in document order. */
export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, raw] of Object.entries(item)) {
      if (!isObject(raw) || typeof raw.operationId !== 'string') continue;
      const parameters = (Array.isArray(raw.parameters) ? raw.parameters : [])
        .filter(isObject)
        .map((parameter): Parameter => ({
          name: String(parameter.name),
          in: parameter.in as Parameter['in'],
          required: parameter.required === true,
          schema: isObject(parameter.schema) ? parameter.schema : {},
        }));
      const requestBody = isObject(raw.requestBody) ? raw.requestBody : undefined;
      const content = requestBody && isObject(requestBody.content) ? requestBody.content : {};
      const [mediaType, media] = Object.entries(content)[0] ?? [];
      operations.push({
        operationId: raw.operationId,
        method: method.toUpperCase(),
        path,
        parameters,
        body:
          mediaType && isObject(media) && isObject(media.schema)
            ? { mediaType, schema: media.schema, required: requestBody?.required === true }
            : undefined,
        responses: isObject(raw.responses) ? (raw.responses as Record<string, Schema>) : {},
      });
    }
  }
  return operations;
}

/** One request of the campaign: what it is meant to be, what it is, and how it is sent. */
export interface FuzzRequest {
  operationId: string;
  caller: CallerName;
  intent: 'valid' | 'invalid';
  /** Where and how an invalid request breaks the document (`body items[0].quantity: above maximum`). */
  mutation?: string;
  /** Whether the document refuses the request: the schema validator's verdict (or by construction). */
  refusedByDocument: boolean;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  /** The ids in the path, by parameter name. */
  pathIds: Record<string, string>;
}

/**
 * Request headers the service reads but never refuses a request for (an unknown language
 * is ru; an entity tag that does not match is not a match): the fuzz sends plausible values and does not
 * judge the requests by them.
 */
const LENIENT_HEADERS = new Set(['Accept-Language', 'If-Match', 'If-None-Match']);

/** Malformed ids for a path (none of them an alias word such as `me` or `latest`). */
const JUNK_IDS = [
  'not-a-uuid',
  '12345',
  'zzzzzzzz-zzzz-4zzz-8zzz-zzzzzzzzzzzz',
  'x'.repeat(40),
  '%00',
  "1' OR '1'='1",
];

/** Query values a strict number parser refuses (numbers are plain decimals). */
const JUNK_NUMBERS = ['', 'abc', '0x2', '1e3', ' 7', '+5', '1_000', 'NaN', 'Infinity'];

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** A JSON body nested far deeper than any body of the API (deeper than 32 levels is a 400). */
const DEEP_JSON = `{"items":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;

interface Draft {
  pathIds: Record<string, string>;
  query: Record<string, unknown>;
  /** Query values sent as they are, not from a typed value (junk numbers). */
  rawQuery: Record<string, string>;
  headers: Record<string, string>;
  body?: { value: unknown } | { raw: string; contentType: string } | { form: FormPart[] };
  mutation?: string;
  /** Set when the draft is refused by construction, whatever the validator would say. */
  refused?: true;
}

export class RequestFactory {
  constructor(
    private readonly document: OpenApiDocument,
    private readonly validators: SchemaValidators,
    private readonly world: World,
  ) {}

  private context(caller: CallerName): ValueContext {
    return { document: this.document, known: (name) => this.world.known(name, caller) };
  }

  /** An arbitrary request to `operation` by `caller`, meant to be valid or invalid. */
  request(operation: Operation, caller: CallerName, intent: 'valid' | 'invalid'): fc.Arbitrary<FuzzRequest> {
    const draft = this.validDraft(operation, caller);
    const chosen =
      intent === 'valid' ? draft : draft.chain((valid) => this.invalidDraft(operation, caller, valid));
    return chosen.map((final) => this.finish(operation, caller, intent, final));
  }

  private validDraft(operation: Operation, caller: CallerName): fc.Arbitrary<Draft> {
    const ctx = this.context(caller);
    const query: Record<string, fc.Arbitrary<unknown>> = {};
    const headers: Record<string, fc.Arbitrary<string>> = {};
    const optional: string[] = [];
    for (const parameter of operation.parameters) {
      if (parameter.in === 'query') {
        query[parameter.name] = validValue(ctx, parameter.schema, parameter.name);
        if (!parameter.required) optional.push(parameter.name);
      } else if (parameter.in === 'header') {
        const value = this.headerValue(parameter);
        if (value) headers[parameter.name] = value;
      }
    }
    // An optional query parameter is sent one time in four: lists are mostly asked for with few filters.
    const queryArbitrary = fc
      .record(
        Object.fromEntries(
          Object.entries(query).map(([name, value]) => [
            name,
            optional.includes(name)
              ? fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: value })
              : value,
          ]),
        ),
      )
      .map((values) => Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)));
    // Optional headers are sent about half the time.
    const headerArbitrary = fc
      .record(headers)
      .chain((all) =>
        fc
          .subarray(Object.keys(all))
          .map((kept) =>
            Object.fromEntries(
              Object.entries(all).filter(
                ([name]) =>
                  kept.includes(name) ||
                  operation.parameters.some((p) => p.name === name && p.in === 'header' && p.required),
              ),
            ),
          ),
      );
    return fc
      .record({
        pathIds: this.pathIds(operation, caller),
        query: queryArbitrary,
        headers: headerArbitrary,
        body: this.validBody(operation, ctx),
      })
      .map(({ pathIds, query: q, headers: h, body }) => ({
        pathIds,
        query: q,
        rawQuery: {},
        headers: h,
        ...(body ? { body } : {}),
      }));
  }

  private headerValue(parameter: Parameter): fc.Arbitrary<string> | undefined {
    switch (parameter.name) {
      case 'Idempotency-Key':
        // A fresh key for each request, as a client makes one per operation (replays are not the point).
        return fc.uuid({ version: 4 });
      case 'Accept-Language':
        return fc.constantFrom('en', 'ru', 'en-US,en;q=0.9', 'de', '*');
      case 'If-Match':
      case 'If-None-Match': {
        const etags = this.world.knownEtags();
        return fc.constantFrom('"00000000-0000-4000-8000-000000000000.v1"', '*', ...etags.slice(-20));
      }
      default:
        return undefined;
    }
  }

  private pathIds(operation: Operation, caller: CallerName): fc.Arbitrary<Record<string, string>> {
    const names = operation.parameters.filter((p) => p.in === 'path').map((p) => p.name);
    if (names.length === 0) return fc.constant({});
    const [parent, child] = names;
    const pairs = child ? this.world.knownPairs(parent, child, caller) : [];
    const single = fc.record(
      Object.fromEntries(
        names.map((name) => {
          const known = this.world.known(name, caller);
          const others = this.world.anyones(name);
          return [
            name,
            fc.oneof(
              {
                weight: known.length > 0 ? 6 : 0,
                arbitrary: known.length > 0 ? fc.constantFrom(...known) : fc.uuid(),
              },
              {
                weight: others.length > 0 ? 2 : 0,
                arbitrary: others.length > 0 ? fc.constantFrom(...others) : fc.uuid(),
              },
              { weight: 1, arbitrary: fc.uuid() },
            ),
          ];
        }),
      ),
    );
    if (pairs.length === 0) return single;
    return fc.oneof(
      {
        weight: 3,
        arbitrary: fc.constantFrom(...pairs).map((pair) => ({ [parent]: pair.parent, [child]: pair.child })),
      },
      { weight: 1, arbitrary: single },
    );
  }

  private validBody(operation: Operation, ctx: ValueContext): fc.Arbitrary<Draft['body'] | undefined> {
    const body = operation.body;
    if (!body) return fc.constant(undefined);
    if (body.mediaType === 'multipart/form-data')
      return this.validForm(body.schema, ctx).map((form) => ({ form }));
    return validValue(ctx, body.schema).map((value) => ({ value }));
  }

  private validForm(schema: Schema, ctx: ValueContext): fc.Arbitrary<FormPart[]> {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const file = isObject(properties.file) ? properties.file : {};
    const allowed = String(file.description ?? '');
    const kinds: SampleKind[] = (['pdf', 'png', 'jpeg'] as const).filter((kind) =>
      allowed.includes(kind === 'pdf' ? 'application/pdf' : `image/${kind}`),
    );
    const texts = Object.entries(properties).filter(([name, part]) => name !== 'file' && isObject(part));
    return fc
      .record({
        kind: fc.constantFrom(...(kinds.length > 0 ? kinds : (['png'] as SampleKind[]))),
        size: fc.integer({ min: 16, max: 4096 }),
        text: fc.record(
          Object.fromEntries(texts.map(([name, part]) => [name, validValue(ctx, part as Schema, name)])),
          { requiredKeys: [] },
        ),
      })
      .map(({ kind, size, text }) => [
        {
          name: 'file',
          data: sampleFile(kind, size),
          filename: `sample.${kind}`,
          contentType: mediaTypeOf(kind),
        },
        ...Object.entries(text).map(([name, value]) => ({ name, data: String(value) })),
      ]);
  }

  private invalidDraft(operation: Operation, caller: CallerName, valid: Draft): fc.Arbitrary<Draft> {
    const ctx = this.context(caller);
    const ways: Array<fc.Arbitrary<Draft>> = [];
    const body = operation.body;
    if (body && body.mediaType !== 'multipart/form-data') {
      ways.push(
        invalidValue(ctx, body.schema).map((broken) => ({
          ...valid,
          body: { value: broken.value },
          mutation: `body ${describe(broken)}`,
        })),
      );
      if (body.required)
        ways.push(fc.constant({ ...valid, body: undefined, mutation: 'body: absent', refused: true }));
      ways.push(
        fc.constant({
          ...valid,
          body: { raw: DEEP_JSON, contentType: body.mediaType },
          mutation: 'body: JSON nested 10,000 levels deep',
          refused: true,
        }),
      );
    }
    if (body && body.mediaType === 'multipart/form-data') ways.push(this.invalidForm(body.schema, valid));
    if (!body && BODY_METHODS.has(operation.method)) {
      ways.push(
        fc.constant({
          ...valid,
          body: { raw: '{"unexpectedField":1}', contentType: 'application/json' },
          mutation: 'body: fields sent to an operation that takes no body',
          refused: true,
        }),
      );
    }
    const query = operation.parameters.filter((p) => p.in === 'query');
    if (query.length > 0) {
      ways.push(
        fc.constantFrom(...query).chain((parameter) =>
          fc.oneof(
            invalidValue(ctx, parameter.schema, parameter.name).map((broken): Draft => ({
              ...valid,
              query: { ...valid.query, [parameter.name]: broken.value },
              mutation: `query ${describe({ ...broken, path: joinPath(parameter.name, broken.path) })}`,
            })),
            ...(isNumeric(parameter.schema)
              ? [
                  fc.constantFrom(...JUNK_NUMBERS).map((junk): Draft => ({
                    ...valid,
                    rawQuery: { [parameter.name]: junk },
                    mutation: `query ${parameter.name}: not a plain decimal (${JSON.stringify(junk)})`,
                    refused: true,
                  })),
                ]
              : []),
          ),
        ),
      );
    }
    // Where a query is declared it is validated as a whole (an unknown parameter is UNKNOWN_FIELD, as an
    // unknown body field is); elsewhere the document says nothing of the query, and nor does the fuzz.
    if (query.length > 0) {
      ways.push(
        fc.constant({
          ...valid,
          rawQuery: { ...valid.rawQuery, unexpected: '1' },
          mutation: 'query unexpected: not declared',
          refused: true,
        }),
      );
    }
    const pathNames = Object.keys(valid.pathIds);
    if (pathNames.length > 0) {
      ways.push(
        fc.tuple(fc.constantFrom(...pathNames), fc.constantFrom(...JUNK_IDS)).map(([name, junk]) => ({
          ...valid,
          pathIds: { ...valid.pathIds, [name]: junk },
          mutation: `path ${name}: not a uuid (${JSON.stringify(junk)})`,
          refused: true,
        })),
      );
    }
    if (operation.parameters.some((p) => p.name === 'Idempotency-Key')) {
      ways.push(
        // (An empty value is no key at all, as for any header.)
        fc.constantFrom('not-a-uuid', 'x'.repeat(37), `${randomUUID()}, ${randomUUID()}`).map((key) => ({
          ...valid,
          headers: { ...valid.headers, 'Idempotency-Key': key },
          mutation: `header Idempotency-Key: not a uuid (${JSON.stringify(key)})`,
          refused: true,
        })),
      );
    }
    // An operation with no parameter and no body cannot be called against the document.
    return ways.length > 0 ? fc.oneof(...ways) : fc.constant(valid);
  }

  private invalidForm(schema: Schema, valid: Draft): fc.Arbitrary<Draft> {
    const form = valid.body && 'form' in valid.body ? valid.body.form : [];
    const file = form.find((part) => part.name === 'file');
    const others = form.filter((part) => part.name !== 'file');
    const hasDescription = isObject(schema.properties) && 'description' in schema.properties;
    const ways: Array<fc.Arbitrary<{ form: FormPart[]; mutation: string }>> = [
      fc.constant({ form: others, mutation: 'form file: missing' }),
      fc.constant({
        form: [
          { name: 'file', data: sampleFile('elf', 512), filename: 'run.pdf', contentType: 'application/pdf' },
        ],
        mutation: 'form file: an executable, not one of the allowed types',
      }),
      fc.constant({
        form: [...(file ? [file] : []), { name: 'unexpected', data: 'x' }],
        mutation: 'form unexpected: not declared',
      }),
    ];
    if (hasDescription && file) {
      ways.push(
        fc.constantFrom('a'.repeat(501), 'bell\u0007').map((text) => ({
          form: [file, { name: 'description', data: text }],
          mutation: `form description: ${text.length > 500 ? 'longer than maxLength' : 'does not match the pattern'}`,
        })),
      );
    }
    return fc
      .oneof(...ways)
      .map(({ form: parts, mutation }) => ({ ...valid, body: { form: parts }, mutation, refused: true }));
  }

  private finish(
    operation: Operation,
    caller: CallerName,
    intent: 'valid' | 'invalid',
    draft: Draft,
  ): FuzzRequest {
    const headers: Record<string, string> = { ...draft.headers };
    let payload: string | Buffer | undefined;
    const body = draft.body;
    if (body && 'value' in body) {
      payload = JSON.stringify(body.value);
      headers['content-type'] = operation.body?.mediaType ?? 'application/json';
    } else if (body && 'raw' in body) {
      payload = body.raw;
      headers['content-type'] = body.contentType;
    } else if (body && 'form' in body) {
      const form = multipartBody(body.form);
      payload = form.payload;
      headers['content-type'] = form.contentType;
    }
    const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) =>
      encodeURIComponent(draft.pathIds[name] ?? randomUUID()),
    );
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(draft.query)) {
      if (name in draft.rawQuery) continue;
      for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
    }
    for (const [name, value] of Object.entries(draft.rawQuery)) search.append(name, value);
    const query = search.toString();
    return {
      operationId: operation.operationId,
      caller,
      intent,
      mutation: draft.mutation,
      refusedByDocument: draft.refused === true || this.refuses(operation, draft, search),
      method: operation.method,
      url: query ? `${path}?${query}` : path,
      headers,
      payload,
      pathIds: draft.pathIds,
    };
  }

  /** Whether the document's schemas refuse the request's body, query (as sent) or validated headers. */
  private refuses(operation: Operation, draft: Draft, search: URLSearchParams): boolean {
    const body = draft.body;
    if (operation.body && body && 'value' in body) {
      if (this.validators.validate('request', operation.body.schema, body.value).length > 0) return true;
    }
    const query = operation.parameters.filter((p) => p.in === 'query');
    const querySchema: Schema = {
      type: 'object',
      properties: Object.fromEntries(query.map((p) => [p.name, p.schema])),
      required: query.filter((p) => p.required).map((p) => p.name),
      ...(query.length > 0 ? { additionalProperties: false } : {}),
    };
    if (this.validators.validate('request', querySchema, this.decodeQuery(query, search)).length > 0)
      return true;
    return operation.parameters.some((parameter) => {
      if (parameter.in !== 'header' || LENIENT_HEADERS.has(parameter.name)) return false;
      const value = draft.headers[parameter.name];
      if (value === undefined) return parameter.required;
      return this.validators.validate('request', parameter.schema, value).length > 0;
    });
  }

  /**
   * A query string read as the document's types read it (OpenAPI `form` style, exploded): a repeated
   * parameter is a list, a number is plain decimal text, a boolean `true` or `false`; anything else stays
   * text, which the schema then refuses.
   */
  private decodeQuery(parameters: Parameter[], search: URLSearchParams): Record<string, unknown> {
    const decoded: Record<string, unknown> = {};
    for (const name of new Set(search.keys())) {
      const values = search.getAll(name);
      const schema = resolve(this.document, parameters.find((p) => p.name === name)?.schema ?? {});
      if (schema.type === 'array') {
        const items = isObject(schema.items) ? resolve(this.document, schema.items) : {};
        decoded[name] = values.map((value) => decodeScalar(items, value));
      } else {
        decoded[name] = values.length === 1 ? decodeScalar(schema, values[0]) : values;
      }
    }
    return decoded;
  }
}

const DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

function decodeScalar(schema: Schema, value: string): unknown {
  if ((schema.type === 'integer' || schema.type === 'number') && DECIMAL.test(value)) return Number(value);
  if (schema.type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

function describe(mutation: Mutation): string {
  return `${mutation.path || '(root)'}: ${mutation.what}`;
}

function isNumeric(schema: Schema): boolean {
  return schema.type === 'integer' || schema.type === 'number';
}

function mediaTypeOf(kind: SampleKind): string {
  return kind === 'pdf' ? 'application/pdf' : `image/${kind}`;
}
