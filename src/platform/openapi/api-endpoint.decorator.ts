import { applyDecorators, SetMetadata, Type } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiHeader,
  ApiOperation,
  ApiResponse,
  type HeaderObject,
  type ReferenceObject,
  type SchemaObject,
} from '@nestjs/swagger';
import type { AppConfig } from '../config/app-config';
import type { ErrorCode } from '../problem/error-codes';
import { type PlainFieldKind, schemaOf } from '../validation/fields';
import { DEPRECATION_HEADERS, etagHeader, RATE_LIMIT_HEADERS } from './components';

// Helpers for `headers` and bodies of the success response, importable from here with the decorator.
export { binarySchema, etagHeader, fileDownloadHeaders, locationHeader } from './components';

/** A deprecated endpoint (docs/versioning.md). */
export interface EndpointDeprecation {
  /** The replacement, as a path (`/api/v2/orders/{orderId}`); the description names it. */
  successor: string;
  /** When the endpoint is switched off: from then on it answers 410 and is left out of the document. */
  sunset: (config: AppConfig) => Date;
}

export interface ApiEndpointOptions {
  /** camelCase, action plus resource: `getOrders`, `confirmOrder`. */
  operationId: string;
  /** At most 80 characters. */
  summary: string;
  /** Only where behaviour is not obvious: side effects, role dependence, atomicity. */
  description?: string;
  /**
   * Codes this operation answers besides those every operation can (VALIDATION_ERROR, RATE_LIMIT_EXCEEDED,
   * INTERNAL_ERROR, SERVICE_UNAVAILABLE) and those its declarations imply: UNAUTHORIZED unless `@Public()`,
   * ACCESS_DENIED from `@Roles()`, the IDEMPOTENCY_KEY_* pair from `@Idempotent()`, CONCURRENT_MODIFICATION
   * from `conditional: 'write'`, PAYLOAD_TOO_LARGE and UNSUPPORTED_MEDIA_TYPE from a request body,
   * ENDPOINT_REMOVED from `deprecated`. The document lists them all as the operation's enum of codes.
   */
  errors?: readonly ErrorCode[];
  /** The JSON body of the success response: a model class, or `[Model]` for an array. Omit for no body. */
  type?: Type<unknown> | [Type<unknown>];
  /** A success body that is not a model, e.g. a file download: `{ type: 'string', format: 'binary' }`. */
  schema?: SchemaObject | ReferenceObject;
  /** Media types of `schema` (default `application/json`). */
  contentTypes?: readonly string[];
  /** 200 unless given (201 for a create, 202 for a task start, 204 for no content). */
  successStatus?: number;
  successDescription?: string;
  /** Headers of the success response besides `RateLimit-*`: `locationHeader('the created order')`, `etagHeader()`. */
  headers?: Record<string, HeaderObject>;
  /**
   * Conditional requests: `read` declares `If-None-Match` and the 304 answer, `write` declares `If-Match`
   * and its 409 CONCURRENT_MODIFICATION. Both add `ETag` to the success response.
   */
  conditional?: 'read' | 'write';
  deprecated?: EndpointDeprecation;
  /**
   * The operation reads what a read replica may serve (a list, a search, a report, an export: `replicaRead`
   * statements): its description gets the lag promise (REPLICA_LAG_PROMISE).
   */
  replicaLag?: true;
}

/** What a client may see of other callers' changes when read replicas serve the operation. */
export const REPLICA_LAG_PROMISE =
  "May be served by a read replica: changes made by other callers can appear up to the deployment's " +
  'replica lag bound later (`DB_REPLICA_MAX_LAG_MS`, 5 seconds unless configured otherwise); the ' +
  "caller's own changes are always included.";

/**
 * Metadata key of the options on the route handler. The document builder reads it to render the error
 * responses, security and request headers (with what `@Public()`, `@Roles()` and `@Idempotent()` say) and
 * the deprecation notice; the deprecation mechanism can read `deprecated` from it.
 */
export const API_ENDPOINT = 'openapi:endpoint';

/**
 * Declares one business operation the way every operation is declared: operationId, summary, the success
 * response with its `RateLimit-*` headers, and request headers. When the document is built, each
 * operation also gets one Problem Details response per status it can answer (listing the codes; 429 with
 * its four headers) whose `code` is the operation's own enum of codes (`<OperationId>ErrorCode`), its security from `@Public()` / `@Roles()` and the `Idempotency-Key` header from
 * `@Idempotent()`. Use it on every business endpoint instead of ApiOperation/ApiResponse; tag the
 * controller with one plural capitalized tag (`@ApiTags('Orders')`). Enums in DTOs are named components:
 * `@ApiProperty({ enum: ORDER_STATUSES, enumName: 'OrderStatus' })`.
 */
export function ApiEndpoint(options: ApiEndpointOptions): MethodDecorator {
  const decorators: MethodDecorator[] = [
    SetMetadata(API_ENDPOINT, options),
    ApiOperation({
      operationId: options.operationId,
      summary: options.summary,
      description: options.replicaLag
        ? [options.description, REPLICA_LAG_PROMISE].filter(Boolean).join('\n\n')
        : options.description,
      deprecated: options.deprecated ? true : undefined,
    }),
    successResponse(options),
    ...requestHeaders(options),
  ];
  if (options.conditional === 'read') {
    decorators.push(
      ApiResponse({
        status: 304,
        description: 'Not Modified: `If-None-Match` names the current version; no body.',
        headers: etagHeader(),
      }),
    );
  }
  return applyDecorators(...decorators);
}

const SUCCESS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
};

function successResponse(options: ApiEndpointOptions): MethodDecorator {
  const status = options.successStatus ?? 200;
  const description = options.successDescription ?? SUCCESS_TEXT[status] ?? 'Success';
  const headers: Record<string, HeaderObject> = {
    ...RATE_LIMIT_HEADERS,
    ...(options.conditional ? etagHeader() : {}),
    ...(options.deprecated ? DEPRECATION_HEADERS : {}),
    ...options.headers,
  };
  if (options.type) return ApiResponse({ status, description, headers, type: options.type });
  if (options.schema) {
    const schema = options.schema;
    const content = Object.fromEntries(
      (options.contentTypes ?? ['application/json']).map((type) => [type, { schema }]),
    );
    return ApiResponse({ status, description, headers, content });
  }
  return ApiResponse({ status, description, headers });
}

/**
 * Request headers the service reads but never refuses a request for (an unknown language falls back to
 * `ru`; an entity-tag list that does not parse matches nothing): their schemas say
 * what a client sends.
 */
const ACCEPT_LANGUAGE: SchemaObject = {
  type: 'string',
  pattern: '^[A-Za-z0-9*,;=. -]*$',
  maxLength: 200,
  example: 'en',
};
/** `*`, or a list of entity tags (RFC 9110 §13.1.1); the service's own are single strong tags. */
const ENTITY_TAG_LIST: SchemaObject = {
  type: 'string',
  pattern: '^(\\*|(W/)?"[!#-~]*"( *, *(W/)?"[!#-~]*")*)$',
  maxLength: 1024,
  example: '"7f1c0e7e-1f2a-4c53-9d0e-2b6f1b9f4a10.v3"',
};

function requestHeaders(options: ApiEndpointOptions): MethodDecorator[] {
  const headers = [
    ApiHeader({
      name: 'Accept-Language',
      required: false,
      description:
        'Language of `detail` and `violations[].message`: `ru` (default) or `en`; the first tag counts, ' +
        'an unknown language is `ru`.',
      schema: ACCEPT_LANGUAGE,
    }),
  ];
  if (options.conditional === 'read') {
    headers.push(
      ApiHeader({
        name: 'If-None-Match',
        required: false,
        description: 'An ETag seen before: while it is current the answer is 304 without a body.',
        schema: ENTITY_TAG_LIST,
      }),
    );
  }
  if (options.conditional === 'write') {
    headers.push(
      ApiHeader({
        name: 'If-Match',
        required: false,
        description: 'Change only while the resource has this ETag; otherwise 409 CONCURRENT_MODIFICATION.',
        schema: ENTITY_TAG_LIST,
      }),
    );
  }
  return headers;
}

/** A text part of a multipart upload: its kind (`text(...)`) gives its bounds and pattern. */
export interface MultipartTextField {
  kind: PlainFieldKind;
  description?: string;
  required?: boolean;
}

export interface ApiMultipartFileOptions {
  /** Name of the file part (`file`). */
  field: string;
  maxBytes: number;
  allowedTypes: readonly string[];
  description?: string;
  extraFields?: Record<string, MultipartTextField>;
}

/**
 * Declares a `multipart/form-data` body with one required binary part and its limits: size (`maxLength`,
 * in bytes), allowed types (the part's encoding `contentType`) and each text part's maxLength: the
 * document states every limit a client meets. List FILE_TOO_LARGE and UNSUPPORTED_FILE_TYPE in `errors`.
 */
export function ApiMultipartFile(options: ApiMultipartFileOptions): MethodDecorator {
  const extra = Object.entries(options.extraFields ?? {});
  const required = [options.field, ...extra.filter(([, field]) => field.required).map(([name]) => name)];
  return applyDecorators(
    ApiConsumes('multipart/form-data'),
    ApiBody({
      schema: {
        type: 'object',
        required,
        properties: {
          [options.field]: {
            type: 'string',
            format: 'binary',
            maxLength: options.maxBytes,
            description:
              `${options.description ?? 'The file'}: ${options.allowedTypes.join(', ')}, at most ` +
              `${formatBytes(options.maxBytes)}. The type is checked from the content.`,
          },
          ...Object.fromEntries(
            extra.map(([name, field]) => [name, { ...schemaOf(field.kind), description: field.description }]),
          ),
        },
      },
      encoding: { [options.field]: { contentType: options.allowedTypes.join(', ') } },
    }),
  );
}

function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB` : `${bytes} bytes`;
}
