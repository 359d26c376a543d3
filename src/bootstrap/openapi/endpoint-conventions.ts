import type { INestApplication, Type } from '@nestjs/common';
import { MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import type {
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger';
import { PUBLIC_ROUTE, REQUIRED_ROLES } from '../../platform/auth/decorators';
import type { AppConfig } from '../../platform/config/app-config';
import { ALIAS_ROUTE, type AliasRouteMetadata } from '../../platform/http/alias-route';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_METADATA,
  type IdempotentOptions,
} from '../../platform/idempotency/idempotency.constants';
import { ErrorCode, ERROR_CODE_NAMES, ERROR_CODES, STATUS_TITLES } from '../../platform/problem/error-codes';
import { PROBLEM_CONTENT_TYPE } from '../../platform/problem/problem';
import { API_ENDPOINT, ApiEndpointOptions } from '../../platform/openapi/api-endpoint.decorator';
import {
  BEARER_SCHEME,
  CORS_HEADERS,
  ERROR_RATE_LIMIT_HEADERS,
  SCHEMA,
  schemaRef,
  TOO_MANY_REQUESTS_HEADERS,
} from '../../platform/openapi/components';
import { schemaOf, uuid } from '../../platform/validation/fields';
import { isPastSunset } from '../../platform/versioning/deprecation';

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * Every operation can answer these: an unexpected failure, the rate limit, and 503 while PostgreSQL, Redis
 * or the token keys cannot be reached. What the HTTP parser refuses before a request reaches any operation
 * (BAD_REQUEST, URI_TOO_LONG, HEADERS_TOO_LARGE, REQUEST_TIMEOUT) and unknown routes and methods are in
 * `ErrorCode` only.
 */
const ALWAYS: readonly ErrorCode[] = [
  'VALIDATION_ERROR',
  'RATE_LIMIT_EXCEEDED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
];
/** What the body parser answers for a request body it does not take (type or size). */
const BODY_ERRORS: readonly ErrorCode[] = ['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];

export interface Endpoint {
  options: ApiEndpointOptions;
  public: boolean;
  roles?: readonly string[];
  idempotent?: IdempotentOptions;
  alias?: AliasRouteMetadata;
}

/**
 * The `@ApiEndpoint` handlers of the application, by operationId, with what `@Public()`, `@Roles()` and `@Idempotent()`
 * say about them; read here rather than repeated in ApiEndpoint, so the document cannot disagree with the
 * guard and the interceptor that enforce them.
 */
export function declaredEndpoints(app: INestApplication): Map<string, Endpoint> {
  const reflector = new Reflector();
  const scanner = new MetadataScanner();
  const found = new Map<string, Endpoint>();
  for (const module of app.get(ModulesContainer, { strict: false }).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type<unknown> | null;
      if (!controller) continue;
      const prototype = controller.prototype as Record<string, unknown>;
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name] as (...args: unknown[]) => unknown;
        const options = reflector.get<ApiEndpointOptions | undefined>(API_ENDPOINT, handler);
        if (!options) continue;
        if (found.has(options.operationId)) {
          throw new Error(
            `operationId ${options.operationId} is declared twice (${controller.name}.${name})`,
          );
        }
        const targets = [handler, controller];
        found.set(options.operationId, {
          options,
          public: reflector.getAllAndOverride<boolean | undefined>(PUBLIC_ROUTE, targets) === true,
          roles: reflector.getAllAndOverride<string[] | undefined>(REQUIRED_ROLES, targets),
          idempotent: reflector.get<IdempotentOptions | undefined>(IDEMPOTENT_METADATA, handler),
          alias: reflector.get<AliasRouteMetadata | undefined>(ALIAS_ROUTE, handler),
        });
      }
    }
  }
  return found;
}

/**
 * The codes an operation can answer: its own (`errors`), what every operation answers, and what its
 * declarations imply. In the registry's order, so the document does not change with the declarations' order.
 */
function errorCodes(endpoint: Endpoint, operation: OperationObject): ErrorCode[] {
  const { options } = endpoint;
  const codes = new Set<ErrorCode>([...ALWAYS, ...(options.errors ?? [])]);
  if (!endpoint.public) codes.add('UNAUTHORIZED');
  if (endpoint.roles?.length) codes.add('ACCESS_DENIED');
  if (endpoint.idempotent) {
    codes.add('IDEMPOTENCY_KEY_REUSED');
    codes.add('IDEMPOTENCY_KEY_IN_PROGRESS');
  }
  if (options.conditional === 'write') codes.add('CONCURRENT_MODIFICATION');
  if (operation.requestBody) for (const code of BODY_ERRORS) codes.add(code);
  if (options.deprecated) codes.add('ENDPOINT_REMOVED');
  return ERROR_CODE_NAMES.filter((code) => codes.has(code));
}

/** Name of the enum component of an operation's codes: `createOrder` → `CreateOrderErrorCode`. */
export function operationErrorCodeName(operationId: string): string {
  return `${operationId.charAt(0).toUpperCase()}${operationId.slice(1)}ErrorCode`;
}

/** The enum of the codes one operation can answer (a subset of `ErrorCode`), so clients can type them. */
function operationErrorCodeSchema(operationId: string, codes: readonly ErrorCode[]): SchemaObject {
  return {
    type: 'string',
    enum: [...codes],
    description: `The codes \`${operationId}\` can answer; its error responses say which status each has.`,
  };
}

/**
 * One Problem Details response per status, its description naming the codes; the body is a Problem whose
 * `code` is the operation's own enum (`enumName`), not every code of the service.
 */
function errorResponses(codes: readonly ErrorCode[], enumName: string): Record<string, ResponseObject> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes)
    byStatus.set(ERROR_CODES[code], [...(byStatus.get(ERROR_CODES[code]) ?? []), code]);
  const schema: SchemaObject = {
    allOf: [
      schemaRef(SCHEMA.problem),
      { type: 'object', required: ['code'], properties: { code: schemaRef(enumName) } },
    ],
  };
  return Object.fromEntries(
    [...byStatus.entries()].map(([status, statusCodes]) => [
      String(status),
      {
        description: `${STATUS_TITLES[status] ?? 'Error'}: ${statusCodes.join(', ')}.`,
        headers: status === 429 ? TOO_MANY_REQUESTS_HEADERS : ERROR_RATE_LIMIT_HEADERS,
        content: { [PROBLEM_CONTENT_TYPE]: { schema } },
      },
    ]),
  );
}

function idempotencyKeyParameter(options: IdempotentOptions): ParameterObject {
  return {
    name: IDEMPOTENCY_KEY_HEADER,
    in: 'header',
    required: options.required === true,
    description:
      'A uuid per business operation: a retry with the same key and body replays the first response ' +
      '(`Idempotent-Replayed: true`); the same key with another body is 409 IDEMPOTENCY_KEY_REUSED.',
    schema: schemaOf(uuid()),
  };
}

/** Every response may carry `Access-Control-Allow-Origin` (CORS, when configured; http/cors.ts). */
function withCorsHeaders(responses: Record<string, ResponseObject>): Record<string, ResponseObject> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [
      status,
      { ...response, headers: { ...response.headers, ...CORS_HEADERS } },
    ]),
  );
}

/** Responses in status order, as a reader scans them. */
function sortedResponses(responses: Record<string, ResponseObject>): Record<string, ResponseObject> {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * Completes every `@ApiEndpoint` operation: error responses (with the enum of its codes, added to the
 * components), security, the `Idempotency-Key` header, the alias, roles and deprecation notes.
 * A deprecated operation whose sunset is past is left out (docs/versioning.md).
 */
export function applyEndpointConventions(
  document: OpenAPIObject,
  app: INestApplication,
  config: AppConfig,
  now: Date,
): void {
  const declared = declaredEndpoints(app);
  document.components = { ...document.components, schemas: { ...document.components?.schemas } };
  const schemas = document.components.schemas as Record<string, SchemaObject>;
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation: OperationObject | undefined = item[method];
      const endpoint = operation?.operationId ? declared.get(operation.operationId) : undefined;
      if (!operation || !endpoint) continue;
      const deprecation = endpoint.options.deprecated;
      if (deprecation && isPastSunset(deprecation, config, now)) {
        delete item[method];
        continue;
      }
      const sunset = deprecation?.sunset(config);
      const codes = errorCodes(endpoint, operation);
      const enumName = operationErrorCodeName(operation.operationId as string);
      schemas[enumName] = operationErrorCodeSchema(operation.operationId as string, codes);
      operation.responses = withCorsHeaders(
        sortedResponses({
          ...(operation.responses as Record<string, ResponseObject>),
          ...errorResponses(codes, enumName),
        }),
      );
      if (endpoint.idempotent) {
        operation.parameters = [
          ...(operation.parameters ?? []),
          idempotencyKeyParameter(endpoint.idempotent),
        ];
      }
      if (endpoint.public) delete operation.security;
      else operation.security = [{ [BEARER_SCHEME]: [] }];
      const notes = [operation.description];
      if (endpoint.alias) {
        notes.push(`\`${endpoint.alias.word}\` is an alias: it stands for ${endpoint.alias.selects}.`);
      }
      if (endpoint.roles?.length) notes.push(`Allowed roles: ${endpoint.roles.join(', ')}.`);
      if (deprecation && sunset) {
        notes.unshift(
          `Deprecated: use \`${deprecation.successor}\` instead. Removed on ${sunset.toISOString().slice(0, 10)} ` +
            '(the `Sunset` header); it then answers 410 ENDPOINT_REMOVED.',
        );
      }
      const description = notes.filter(Boolean).join('\n\n');
      if (description) operation.description = description;
    }
    if (!HTTP_METHODS.some((method) => item[method])) delete document.paths[path];
  }
}

type Schema = SchemaObject | ReferenceObject;

/** The component names `schema` reaches through `$ref`s, `seen` included (filled as it goes). */
function reachedComponents(document: OpenAPIObject, schema: unknown, seen: Set<string>): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema) reachedComponents(document, item, seen);
  } else if (typeof schema === 'object' && schema !== null) {
    const ref = (schema as ReferenceObject).$ref;
    if (typeof ref === 'string') {
      const name = ref.replace('#/components/schemas/', '');
      if (!seen.has(name)) {
        seen.add(name);
        reachedComponents(document, document.components?.schemas?.[name], seen);
      }
    }
    for (const value of Object.values(schema)) reachedComponents(document, value, seen);
  }
  return seen;
}

/** `additionalProperties: false` on `schema` and every object schema inside it that lists its properties. */
function close(schema: unknown): void {
  if (Array.isArray(schema)) {
    for (const item of schema) close(item);
    return;
  }
  if (typeof schema !== 'object' || schema === null) return;
  const object = schema as SchemaObject;
  if (object.properties && object.additionalProperties === undefined) object.additionalProperties = false;
  for (const [key, value] of Object.entries(object)) if (key !== 'example') close(value);
}

/**
 * Request bodies say what the validation pipe does: a field they do not list is 400 UNKNOWN_FIELD, at any
 * depth (docs/decisions/0075-owasp-ruleset-and-declared-bounds.md). Response schemas stay open: clients
 * ignore fields they do not know (docs/versioning.md). A component used by both would have to be both, which
 * the build refuses.
 */
export function closeRequestBodies(document: OpenAPIObject): void {
  const requestSchemas: Schema[] = [];
  const responseSchemas: Schema[] = [];
  for (const item of Object.values(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation: OperationObject | undefined = item[method];
      if (!operation) continue;
      const body = operation.requestBody as { content?: Record<string, { schema?: Schema }> } | undefined;
      for (const media of Object.values(body?.content ?? {}))
        if (media.schema) requestSchemas.push(media.schema);
      for (const response of Object.values(operation.responses ?? {}) as ResponseObject[]) {
        for (const media of Object.values(response.content ?? {}))
          if (media.schema) responseSchemas.push(media.schema);
      }
    }
  }
  const requests = reachedComponents(document, requestSchemas, new Set());
  const responses = reachedComponents(document, responseSchemas, new Set());
  const shared = [...requests].filter((name) => responses.has(name) && !isEnum(document, name));
  if (shared.length > 0) {
    throw new Error(
      `schemas used by both requests and responses: ${shared.join(', ')}; give each its own class`,
    );
  }
  close(requestSchemas.filter((schema) => !('$ref' in schema)));
  for (const name of requests) close(document.components?.schemas?.[name]);
}

function isEnum(document: OpenAPIObject, name: string): boolean {
  const schema = document.components?.schemas?.[name] as SchemaObject | undefined;
  return schema?.enum !== undefined;
}

/**
 * The earliest sunset still ahead of `now` among the deprecated operations: until then a document built
 * at `now` stays right, from then on it must be built again (one more operation is gone).
 */
export function nextSunset(app: INestApplication, config: AppConfig, now: Date): Date | undefined {
  let next: Date | undefined;
  for (const { options } of declaredEndpoints(app).values()) {
    if (!options.deprecated || isPastSunset(options.deprecated, config, now)) continue;
    const sunset = options.deprecated.sunset(config);
    if (!next || sunset.getTime() < next.getTime()) next = sunset;
  }
  return next;
}
