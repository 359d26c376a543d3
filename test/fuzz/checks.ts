import type { LightMyRequestResponse } from 'fastify';
import type { FuzzRequest, Operation } from './requests';
import { isObject, type OpenApiDocument, type Schema, type SchemaValidators } from './schema';

/** What a response can get wrong, from the worst down. */
export const FAILURE_KINDS = [
  'server error (5xx)',
  'server error in a batch item',
  'error that is not a problem',
  'error code not in ErrorCode',
  'problem schema mismatch',
  'response schema mismatch',
  'undocumented status',
  'undocumented content type',
  'header schema mismatch',
  'invalid request accepted',
  'valid request refused',
] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

/** One failed check, with all it takes to replay it. */
export interface Failure {
  kind: FailureKind;
  operationId: string;
  caller: string;
  mutation?: string;
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  response: { status: number; contentType?: string; body: string };
  details: string[];
  /** What the fuzz knew of the request when it sent it, for telling known defects apart. */
  context?: RequestContext;
  /** The known defect this is (known-failures.ts), if it is one. */
  expected?: string;
}

export interface RequestContext {
  /**
   * What the order would total with the request's lines, from the prices and totals the service answered
   * before (the largest single line for a batch of single-line orders); absent when unknown.
   */
  orderTotal?: number;
}

const PROBLEM_JSON = /^application\/problem\+json(;|$)/;

/**
 * Violation codes a request the document accepts can still get: rules the schemas cannot express (ranges
 * across fields, stock, the catalogue, an opaque cursor, an order's room for lines and money), not bounds
 * the document failed to declare.
 */
const DOMAIN_VIOLATIONS = new Set([
  'INVALID_RANGE',
  'MAX_RANGE',
  'INVALID_CURSOR',
  'INVALID_QUERY',
  'INVALID_QUANTITY',
  'PRODUCT_NOT_FOUND',
  'PRODUCT_DISCONTINUED',
  'PRODUCT_OUT_OF_STOCK',
  'INSUFFICIENT_STOCK',
  'DEFAULT_ADDRESS_REQUIRED',
  // A webhook URL's host is judged by the addresses it resolves to, which no schema can state.
  'URL_NOT_ALLOWED',
]);

/** Rules on the state a request would leave, which no request schema can state, by operation. */
const STATE_RULES: Array<{ operationId: string; field: RegExp; code: string }> = [
  // A merge patch of the delivery address must leave a whole address or none (documented on the field).
  { operationId: 'patchOrder', field: /^deliveryAddress\.(streetName|zipCode)$/, code: 'REQUIRED' },
];

/** A violation of a document-valid request that is a rule of the order, not of the request's shape. */
function isDomainViolation(operationId: string, violation: { field?: unknown; code?: unknown }): boolean {
  if (DOMAIN_VIOLATIONS.has(String(violation.code))) return true;
  const field = String(violation.field);
  if (
    STATE_RULES.some(
      (rule) => rule.operationId === operationId && rule.field.test(field) && rule.code === violation.code,
    )
  ) {
    return true;
  }
  // An order's lines (at most 100) and total (the money column) are checked against the whole order.
  return (
    String(violation.field).replace(/^items\[\d+\]\..*$/, 'items') === 'items' &&
    (violation.code === 'MAX' || violation.code === 'MAX_ITEMS')
  );
}

const shorten = (text: string, max = 2000): string => (text.length > max ? `${text.slice(0, max)}…` : text);

function mediaType(contentType: unknown): string | undefined {
  return typeof contentType === 'string' ? contentType.split(';')[0].trim().toLowerCase() : undefined;
}

/** Judges one answer against the served document; an empty list when it holds. */
export class ResponseJudge {
  private readonly errorCodes: Set<string>;
  private readonly problem: Schema;

  constructor(
    document: OpenApiDocument,
    private readonly validators: SchemaValidators,
  ) {
    const errorCode = document.components.schemas.ErrorCode;
    this.errorCodes = new Set(Array.isArray(errorCode?.enum) ? errorCode.enum.map(String) : []);
    this.problem = { $ref: '#/components/schemas/Problem' };
  }

  judge(
    operation: Operation,
    request: FuzzRequest,
    res: LightMyRequestResponse,
    context?: RequestContext,
  ): Failure[] {
    const found: Array<{ kind: FailureKind; details: string[] }> = [];
    const fail = (kind: FailureKind, ...details: string[]) => found.push({ kind, details });
    const status = res.statusCode;
    const type = mediaType(res.headers['content-type']);
    const documented = operation.responses[String(status)] ?? operation.responses[`${String(status)[0]}XX`];

    if (status >= 500) fail('server error (5xx)');
    let violations: Array<{ field?: unknown; code?: unknown }> = [];
    let code: string | undefined;
    if (status >= 400) {
      const body = parse(res.body);
      if (!PROBLEM_JSON.test(String(res.headers['content-type'])) || !isObject(body)) {
        fail('error that is not a problem', `content-type ${String(res.headers['content-type'])}`);
      } else {
        code = String(body.code);
        if (!this.errorCodes.has(code)) fail('error code not in ErrorCode', `code ${code}`);
        if (body.status !== status) fail('problem schema mismatch', `status member ${String(body.status)}`);
        const errors = this.validators.validate('response', this.problem, body);
        if (errors.length > 0) fail('problem schema mismatch', ...errors);
        violations = Array.isArray(body.violations) ? body.violations.filter(isObject) : [];
      }
    }
    if (status < 300) {
      const results = resultsOf(parse(res.body));
      const broken = results.filter(
        (result) => isObject(result.error) && result.error.code === 'INTERNAL_ERROR',
      );
      if (broken.length > 0)
        fail('server error in a batch item', ...broken.map((r) => `item ${String(r.index)}`));
    }
    if (!documented) {
      fail('undocumented status', `${status} is not among ${Object.keys(operation.responses).join(', ')}`);
    } else {
      if (status < 400) this.checkBody(documented, type, res, fail);
      this.checkHeaders(documented, res, fail);
    }

    if (request.refusedByDocument && status < 400) {
      fail('invalid request accepted', `${status} to a request the document refuses`);
    }
    if (!request.refusedByDocument && code === 'VALIDATION_ERROR') {
      const shape = violations.filter((violation) => !isDomainViolation(operation.operationId, violation));
      if (shape.length > 0) {
        fail('valid request refused', ...shape.map((v) => `${String(v.field)}: ${String(v.code)}`));
      }
    }
    return found.map(({ kind, details }) => ({
      kind,
      operationId: operation.operationId,
      caller: request.caller,
      mutation: request.mutation,
      request: {
        method: request.method,
        url: request.url,
        headers: request.headers,
        body:
          request.payload === undefined
            ? undefined
            : typeof request.payload === 'string'
              ? shorten(request.payload)
              : `<multipart/form-data, ${request.payload.length} bytes>`,
      },
      response: {
        status,
        contentType: res.headers['content-type'] as string | undefined,
        body: shorten(res.body),
      },
      details,
      ...(context ? { context } : {}),
    }));
  }

  private checkBody(
    documented: Schema,
    type: string | undefined,
    res: LightMyRequestResponse,
    fail: (kind: FailureKind, ...details: string[]) => void,
  ): void {
    const content = isObject(documented.content) ? documented.content : undefined;
    if (!content) {
      if (res.rawPayload.length > 0) fail('undocumented content type', `a body where none is documented`);
      return;
    }
    const media = type ? content[type] : undefined;
    if (!isObject(media)) {
      fail('undocumented content type', `${String(type)} is not among ${Object.keys(content).join(', ')}`);
      return;
    }
    const schema = isObject(media.schema) ? media.schema : undefined;
    // A file download is checked for its type only.
    if (!schema || schema.format === 'binary' || !/json/.test(String(type))) return;
    const body = parse(res.body);
    const errors = body === undefined ? ['not JSON'] : this.validators.validate('response', schema, body);
    if (errors.length > 0) fail('response schema mismatch', ...errors);
  }

  private checkHeaders(
    documented: Schema,
    res: LightMyRequestResponse,
    fail: (kind: FailureKind, ...details: string[]) => void,
  ): void {
    const headers = isObject(documented.headers) ? documented.headers : {};
    for (const [name, header] of Object.entries(headers)) {
      const value = res.headers[name.toLowerCase()];
      if (value === undefined || !isObject(header) || !isObject(header.schema)) continue;
      const schema = header.schema;
      const typed = schema.type === 'integer' || schema.type === 'number' ? Number(value) : String(value);
      const errors = this.validators.validate('response', schema, typed);
      if (errors.length > 0 || (typeof typed === 'number' && String(typed) !== String(value))) {
        fail('header schema mismatch', `${name}: ${String(value)} ${errors.join('; ')}`.trim());
      }
    }
  }
}

function resultsOf(body: unknown): Array<Record<string, unknown>> {
  return isObject(body) && Array.isArray(body.results) ? body.results.filter(isObject) : [];
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
