import type { HeaderObject, SchemaObject } from '@nestjs/swagger';
import { MAX_BATCH_ITEMS } from '../batch/batch-request';
import { MAX_ORIGIN_LENGTH, MAX_RATE_LIMIT, MAX_RATE_LIMIT_WINDOW_SECONDS } from '../config/app-config';
import { MAX_ENTITY_TAG_LENGTH } from '../http/conditional-requests';
import {
  ERROR_CODE_NAMES,
  ERROR_CODES,
  problemType,
  STATUS_TITLES,
  VIOLATION_CODES,
} from '../problem/error-codes';
import {
  MAX_FIELD_PATH_LENGTH,
  MAX_PROBLEM_TEXT_LENGTH,
  MAX_VIOLATIONS,
  PROBLEM_CONTENT_TYPE,
} from '../problem/problem';
import { integer, patterned, schemaOf, text } from '../validation/fields';

/** Name of the bearer security scheme (`ApiBearerAuth(BEARER_SCHEME)`). */
export const BEARER_SCHEME = 'bearer';

/** Component names the decorators refer to; the document builder defines them (see `problemComponents`). */
export const SCHEMA = {
  problem: 'Problem',
  violation: 'Violation',
  errorCode: 'ErrorCode',
  violationCode: 'ViolationCode',
} as const;

export const schemaRef = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });

/** Localized text of a problem (`detail`, `violations[].message`, a batch item's `detail`). */
export const PROBLEM_TEXT = text({ min: 1, max: MAX_PROBLEM_TEXT_LENGTH, multiline: true });

/** Schemas declared by name rather than by a class (a union of classes): see `declareSchema`. */
const DECLARED_SCHEMAS = new Map<string, SchemaObject>();

/**
 * Declares the component `name` (e.g. a discriminated `oneOf` of response classes, which no class can
 * express) and returns a reference to it; the document builder adds every declared component.
 */
export function declareSchema(name: string, schema: SchemaObject): { $ref: string } {
  DECLARED_SCHEMAS.set(name, schema);
  return schemaRef(name);
}

export function declaredSchemas(): Record<string, SchemaObject> {
  return Object.fromEntries(DECLARED_SCHEMAS);
}

const longest = (values: readonly string[]): number => Math.max(...values.map((value) => value.length));

/** Zero-based position of an item in a batch request. */
const BATCH_INDEX = integer({ min: 0, max: MAX_BATCH_ITEMS - 1 });

/**
 * The Problem Details schemas. `ErrorCode` and `ViolationCode` come from the one
 * registry in `src/platform/problem/error-codes.ts`, so the document can never list a code the service does not
 * emit, nor miss one it does.
 */
export function problemComponents(): Record<string, SchemaObject> {
  return {
    [SCHEMA.errorCode]: {
      type: 'string',
      enum: [...ERROR_CODE_NAMES],
      description:
        'Machine-readable error code; clients branch on it. New codes may be added (non-breaking). HTTP status ' +
        `of each: ${ERROR_CODE_NAMES.map((code) => `${code} ${ERROR_CODES[code]}`).join(', ')}.`,
    },
    [SCHEMA.violationCode]: {
      type: 'string',
      enum: [...VIOLATION_CODES],
      description: 'Upper-cased name of the violated constraint, or the domain code a field failed with.',
    },
    [SCHEMA.violation]: {
      type: 'object',
      required: ['field', 'message', 'code'],
      properties: {
        field: {
          ...schemaOf(text({ min: 0, max: MAX_FIELD_PATH_LENGTH })),
          description:
            'Dotted path of the invalid field, array elements with an index (`items[0].quantity`); empty ' +
            'when the problem concerns the whole request. The name of an unknown field is cut after ' +
            `${MAX_FIELD_PATH_LENGTH} characters.`,
          example: 'items[0].quantity',
        },
        message: {
          ...schemaOf(PROBLEM_TEXT),
          description: 'Human-readable text in the language of `Accept-Language`.',
          example: 'Must be at least 1.',
        },
        code: schemaRef(SCHEMA.violationCode),
      },
    },
    [SCHEMA.problem]: {
      type: 'object',
      description:
        `RFC 9457 Problem Details, the body of every 4xx and 5xx response (\`${PROBLEM_CONTENT_TYPE}\`). ` +
        'Extension members: `violations` (validation) and `failedItems` (atomic batch).',
      required: ['type', 'status', 'title', 'detail', 'instance', 'code'],
      properties: {
        type: {
          type: 'string',
          format: 'uri',
          pattern: '^urn:problem:order-service:[a-z0-9-]+$',
          maxLength: longest(ERROR_CODE_NAMES.map(problemType)),
          description: 'Stable identifier of the error category.',
          example: 'urn:problem:order-service:order-not-found',
        },
        status: { ...schemaOf(integer({ min: 400, max: 599 })), example: 404 },
        title: {
          type: 'string',
          pattern: '^[A-Z][A-Za-z -]*$',
          maxLength: longest([...Object.values(STATUS_TITLES), 'Error']),
          description: 'English name of the HTTP status; never localized.',
          example: 'Not Found',
        },
        detail: {
          ...schemaOf(PROBLEM_TEXT),
          description: 'Human-readable explanation in the language of `Accept-Language` (default `ru`).',
          example: 'Order 7f1c0e7e-1f2a-4c53-9d0e-2b6f1b9f4a10 does not exist.',
        },
        instance: {
          type: 'string',
          pattern: '^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
          maxLength: 45,
          description: 'Identifier of this occurrence.',
          example: 'urn:uuid:4b0c8f9e-3d1a-4f57-8a43-0f5f3c1d2e6b',
        },
        traceId: {
          ...schemaOf(TRACEPARENT),
          description: 'The `traceparent` of this response (W3C Trace Context).',
        },
        code: schemaRef(SCHEMA.errorCode),
        violations: {
          type: 'array',
          maxItems: MAX_VIOLATIONS,
          description: `Every invalid field at once (at most ${MAX_VIOLATIONS}); present on \`VALIDATION_ERROR\`.`,
          items: schemaRef(SCHEMA.violation),
        },
        failedItems: {
          type: 'array',
          maxItems: MAX_BATCH_ITEMS,
          description: 'Every failed item of an atomic batch; present on `BATCH_TRANSACTION_FAILED`.',
          items: {
            type: 'object',
            required: ['index', 'code', 'detail'],
            properties: {
              index: {
                ...schemaOf(BATCH_INDEX),
                description: 'Zero-based position of the item in the request.',
              },
              code: schemaRef(SCHEMA.errorCode),
              detail: {
                ...schemaOf(PROBLEM_TEXT),
                description: 'Human-readable text in the language of `Accept-Language`.',
              },
            },
          },
        },
      },
    },
  };
}

/** A W3C `traceparent` as the service writes it: version 00, trace id, span id, flags. */
const TRACEPARENT = patterned({
  pattern: /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/,
  max: 55,
  format: 'traceparent',
  example: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
});

const header = (description: string, schema: SchemaObject): HeaderObject => ({ description, schema });

/** Unix time in seconds: any instant up to 9999-12-31T23:59:59Z. */
const UNIX_TIME = integer({ min: 0, max: 253_402_300_799, example: 1767225600 });

/** Sent with every response of a business endpoint: the caller's rate limit. */
export const RATE_LIMIT_HEADERS: Record<string, HeaderObject> = {
  'RateLimit-Limit': header(
    'Requests allowed per window for this client.',
    schemaOf(integer({ min: 1, max: MAX_RATE_LIMIT, example: 100 })),
  ),
  'RateLimit-Remaining': header(
    'Requests left in the current window.',
    schemaOf(integer({ min: 0, max: MAX_RATE_LIMIT, example: 99 })),
  ),
  'RateLimit-Reset': header('Unix time (seconds) at which the current window resets.', schemaOf(UNIX_TIME)),
};

/**
 * The same fields on an error answer: present whenever the request got as far as the rate limiter, which
 * counted it (every error but the body parser's 413 and 415, and a 410 of a removed endpoint).
 */
export const ERROR_RATE_LIMIT_HEADERS: Record<string, HeaderObject> = Object.fromEntries(
  Object.entries(RATE_LIMIT_HEADERS).map(([name, field]) => [
    name,
    { ...field, description: `${field.description ?? ''} Present when the request was counted.` },
  ]),
);

/** The 429 answer: `Retry-After` plus the three `RateLimit-*` fields, `RateLimit-Remaining` being 0. */
export const TOO_MANY_REQUESTS_HEADERS: Record<string, HeaderObject> = {
  'Retry-After': header(
    'Seconds until the window resets.',
    schemaOf(integer({ min: 1, max: MAX_RATE_LIMIT_WINDOW_SECONDS, example: 42 })),
  ),
  ...RATE_LIMIT_HEADERS,
  'RateLimit-Remaining': header(
    'Requests left in the current window: 0.',
    schemaOf(integer({ min: 0, max: 0, example: 0 })),
  ),
};

/**
 * `Access-Control-Allow-Origin`, on every response (OWASP API8): the request's `Origin` when the
 * `CORS_ORIGINS` setting lists it; absent otherwise, and always absent when the setting is unset.
 */
export const CORS_HEADERS: Record<string, HeaderObject> = {
  'Access-Control-Allow-Origin': header(
    "The request's `Origin`, when the `CORS_ORIGINS` setting allows it; absent otherwise (no CORS).",
    {
      type: 'string',
      pattern: '^https?://[^/\\s]+$',
      maxLength: MAX_ORIGIN_LENGTH,
      example: 'https://shop.example.com',
    },
  ),
};

/** `Location` of a 201 or 202: the path of what was created. */
export function locationHeader(of: string, example?: string): Record<string, HeaderObject> {
  return {
    Location: header(`Path of ${of}.`, {
      type: 'string',
      pattern: '^/api/v[0-9]+(/[A-Za-z0-9._~-]+)+$',
      maxLength: 200,
      // A path template (`/api/v1/orders/{orderId}`) shown as a path the pattern takes.
      ...(example ? { example: example.replace(/\{[^}]+\}/g, SAMPLE_ID) } : {}),
    }),
  };
}

const SAMPLE_ID = '7f1c0e7e-1f2a-4c53-9d0e-2b6f1b9f4a10';

/** `ETag`: the version of the returned resource, for `If-None-Match` / `If-Match`. */
export function etagHeader(): Record<string, HeaderObject> {
  return {
    ETag: header('Version of the resource; send it in `If-None-Match` or `If-Match`.', {
      type: 'string',
      pattern: '^"[!#-~]+"$',
      maxLength: MAX_ENTITY_TAG_LENGTH,
      example: '"7f1c0e7e-1f2a-4c53-9d0e-2b6f1b9f4a10.v3"',
    }),
  };
}

/** Limits of a file download: its largest size and the longest `Content-Disposition` its name can make. */
export interface FileDownloadLimits {
  maxBytes: number;
  maxDispositionLength: number;
}

/** Headers of a file download. */
export function fileDownloadHeaders(limits: FileDownloadLimits): Record<string, HeaderObject> {
  return {
    'Content-Disposition': header(
      '`attachment` with the file name in a quoted ASCII `filename`, plus `filename*` (RFC 8187, UTF-8) ' +
        'with the exact name when that is not plain ASCII.',
      {
        type: 'string',
        pattern: '^attachment; filename="[^"\\\\]*"(; filename\\*=UTF-8\'\'[A-Za-z0-9!#$&+.^_`|~%-]+)?$',
        maxLength: limits.maxDispositionLength,
        example: 'attachment; filename="invoice.pdf"',
      },
    ),
    'Content-Length': header(
      'Size of the file in bytes.',
      schemaOf(integer({ min: 0, max: limits.maxBytes })),
    ),
  };
}

/** A binary response body of at most `maxBytes` bytes. */
export function binarySchema(maxBytes: number): SchemaObject {
  return { type: 'string', format: 'binary', maxLength: maxBytes };
}

/** Headers of every response of a deprecated endpoint (docs/versioning.md). */
export const DEPRECATION_HEADERS: Record<string, HeaderObject> = {
  Deprecation: header('Always `true`: the endpoint is deprecated.', {
    type: 'string',
    pattern: '^true$',
    maxLength: 4,
    example: 'true',
  }),
  Sunset: header('HTTP-date after which the endpoint answers 410 `ENDPOINT_REMOVED` (RFC 8594).', {
    type: 'string',
    pattern:
      '^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) ' +
      '[0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$',
    maxLength: 29,
    example: 'Tue, 31 Aug 2027 00:00:00 GMT',
  }),
  Link: header('The replacement, with `rel="successor-version"`.', {
    type: 'string',
    pattern: '^</api/v[0-9]+/[^>]+>; rel="successor-version"$',
    maxLength: 200,
    example: '</api/v2/orders/{orderId}>; rel="successor-version"',
  }),
};
