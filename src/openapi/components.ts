import type { HeaderObject, SchemaObject } from '@nestjs/swagger';
import { ERROR_CODE_NAMES, ERROR_CODES, VIOLATION_CODES } from '../problem/error-codes';
import { PROBLEM_CONTENT_TYPE } from '../problem/problem';

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

/**
 * The Problem Details schemas (contract, Errors). `ErrorCode` and `ViolationCode` come from the one
 * registry in `src/problem/error-codes.ts`, so the document can never list a code the service does not
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
          type: 'string',
          description:
            'Dotted path of the invalid field, array elements with an index (`items[0].quantity`); empty ' +
            'when the problem concerns the whole request.',
          example: 'items[0].quantity',
        },
        message: {
          type: 'string',
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
          description: 'Stable identifier of the error category.',
          example: 'urn:problem:order-service:order-not-found',
        },
        status: { type: 'integer', minimum: 400, maximum: 599, example: 404 },
        title: {
          type: 'string',
          description: 'English name of the HTTP status; never localized.',
          example: 'Not Found',
        },
        detail: {
          type: 'string',
          description: 'Human-readable explanation in the language of `Accept-Language` (default `ru`).',
          example: 'Order 7f1c0e7e-1f2a-4c53-9d0e-2b6f1b9f4a10 does not exist.',
        },
        instance: {
          type: 'string',
          description: 'Identifier of this occurrence.',
          example: 'urn:uuid:4b0c8f9e-3d1a-4f57-8a43-0f5f3c1d2e6b',
        },
        traceId: {
          type: 'string',
          description: 'The `traceparent` of this response (W3C Trace Context).',
          example: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        },
        code: schemaRef(SCHEMA.errorCode),
        violations: {
          type: 'array',
          description: 'Every invalid field at once; present on `VALIDATION_ERROR`.',
          items: schemaRef(SCHEMA.violation),
        },
        failedItems: {
          type: 'array',
          description: 'Every failed item of an atomic batch; present on `BATCH_TRANSACTION_FAILED`.',
          items: {
            type: 'object',
            required: ['index', 'code', 'detail'],
            properties: {
              index: {
                type: 'integer',
                minimum: 0,
                description: 'Zero-based position of the item in the request.',
              },
              code: schemaRef(SCHEMA.errorCode),
              detail: {
                type: 'string',
                description: 'Human-readable text in the language of `Accept-Language`.',
              },
            },
          },
        },
      },
    },
  };
}

const integerHeader = (description: string, example: number): HeaderObject => ({
  description,
  schema: { type: 'integer', minimum: 0, example },
});

/** Sent with every response of a business endpoint (contract, Limits: rate-limit rules). */
export const RATE_LIMIT_HEADERS: Record<string, HeaderObject> = {
  'RateLimit-Limit': integerHeader('Requests allowed per window for this client.', 100),
  'RateLimit-Remaining': integerHeader('Requests left in the current window.', 99),
  'RateLimit-Reset': integerHeader('Unix time (seconds) at which the current window resets.', 1767225600),
};

/** The 429 answer: `Retry-After` plus the three `RateLimit-*` fields, `RateLimit-Remaining` being 0. */
export const TOO_MANY_REQUESTS_HEADERS: Record<string, HeaderObject> = {
  'Retry-After': integerHeader('Seconds until the window resets.', 42),
  ...RATE_LIMIT_HEADERS,
  'RateLimit-Remaining': integerHeader('Requests left in the current window: 0.', 0),
};

/** `Location` of a 201 or 202: the path of what was created (contract, Headers). */
export function locationHeader(of: string, example?: string): Record<string, HeaderObject> {
  return {
    Location: { description: `Path of ${of}.`, schema: { type: 'string', ...(example ? { example } : {}) } },
  };
}

/** `ETag`: the version of the returned resource, for `If-None-Match` / `If-Match`. */
export function etagHeader(): Record<string, HeaderObject> {
  return {
    ETag: {
      description: 'Version of the resource; send it in `If-None-Match` or `If-Match`.',
      schema: { type: 'string', example: '"3"' },
    },
  };
}

/** Headers of a file download (contract, Files). */
export function fileDownloadHeaders(): Record<string, HeaderObject> {
  return {
    'Content-Disposition': {
      description:
        '`attachment` with the file name in a quoted ASCII `filename`, plus `filename*` (RFC 8187, UTF-8) ' +
        'with the exact name when that is not plain ASCII.',
      schema: { type: 'string', example: 'attachment; filename="invoice.pdf"' },
    },
    'Content-Length': { description: 'Size of the file in bytes.', schema: { type: 'integer', minimum: 0 } },
  };
}

/** Headers of every response of a deprecated endpoint (contract, Versioning: Deprecation 2). */
export const DEPRECATION_HEADERS: Record<string, HeaderObject> = {
  Deprecation: {
    description: 'Always `true`: the endpoint is deprecated.',
    schema: { type: 'string', example: 'true' },
  },
  Sunset: {
    description: 'HTTP-date after which the endpoint answers 410 `ENDPOINT_REMOVED` (RFC 8594).',
    schema: { type: 'string', example: 'Tue, 31 Aug 2027 00:00:00 GMT' },
  },
  Link: {
    description: 'The replacement, with `rel="successor-version"`.',
    schema: { type: 'string', example: '</api/v2/orders/{orderId}>; rel="successor-version"' },
  },
};
