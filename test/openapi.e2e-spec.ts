import { randomUUID } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type {
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger';
import { createHttpApp } from '../src/bootstrap/http-app';
import { loadConfig } from '../src/platform/config/app-config';
import { AppLogger, createPinoLogger } from '../src/platform/logging/app-logger';
import { generateOpenApiDocument } from '../src/bootstrap/openapi/offline-document';
import { declaredEndpoints, operationErrorCodeName } from '../src/bootstrap/openapi/endpoint-conventions';
import { buildOpenApiDocument } from '../src/bootstrap/openapi/openapi-document';
import { REPLICA_LAG_PROMISE } from '../src/platform/openapi/api-endpoint.decorator';
import {
  ERROR_CODE_NAMES,
  ERROR_CODES,
  type ErrorCode,
  VIOLATION_CODES,
} from '../src/platform/problem/error-codes';
import { spectralLintDocument } from './spectral/lint';
import { expectProblem } from './support/problem';
import { OpenApiProbeModule, PAST_SUNSET, PROBE_KINDS, PROBE_PATH } from './support/probes/openapi.probe';
import { bootTestApp, TestApp } from './support/test-app';
import { bearer } from './support/tokens';
import { runRedis } from './support/redis';

const RATE_LIMIT = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

function operation(document: OpenAPIObject, path: string, method: 'get' | 'post'): OperationObject {
  const found = document.paths[path]?.[method];
  if (!found) throw new Error(`${method.toUpperCase()} ${path} is not in the document`);
  return found;
}

const response = (op: OperationObject, status: number) => op.responses[String(status)] as ResponseObject;

/** The enum of codes an operation's problem responses declare (the same for all of them). */
function operationCodes(document: OpenAPIObject, op: OperationObject): ErrorCode[] {
  const problem = response(op, 500).content?.['application/problem+json'].schema as { allOf: SchemaObject[] };
  const ref = (problem.allOf[1].properties?.code as { $ref: string }).$ref;
  return (document.components?.schemas?.[ref.replace('#/components/schemas/', '')] as SchemaObject)
    .enum as ErrorCode[];
}
const headerParameters = (op: OperationObject) =>
  ((op.parameters ?? []) as ParameterObject[]).filter((p) => p.in === 'header');

describe('OpenAPI document', () => {
  let t: TestApp;
  let served: LightMyRequestResponse;
  let document: OpenAPIObject;

  beforeAll(async () => {
    t = await bootTestApp({}, [OpenApiProbeModule]);
    served = await t.app.inject({ method: 'GET', url: '/docs/openapi.json' });
    document = served.json();
  });
  afterAll(() => t.close());

  describe('serving', () => {
    it('serves the document at /docs/openapi.json without a token or rate limit', () => {
      expect(served.statusCode).toBe(200);
      expect(served.headers['content-type']).toMatch(/^application\/json/);
      expect(served.headers['ratelimit-limit']).toBeUndefined();
      expect(document.openapi).toMatch(/^3\./);
      expect(document.info).toMatchObject({ title: 'Order Service API', version: t.config.app.version });
    });

    it('serves Swagger UI at /docs with its own assets, pointed at the document', async () => {
      const page = await t.app.inject({ method: 'GET', url: '/docs' });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      const assets = [...page.body.matchAll(/(?:href|src)="(\/docs\/[^"]+)"/g)].map(([, url]) => url);
      expect(assets).toEqual(
        expect.arrayContaining(['/docs/swagger-ui-bundle.js', '/docs/swagger-initializer.js']),
      );
      for (const url of assets) {
        const asset = await t.app.inject({ method: 'GET', url });
        expect({ url, status: asset.statusCode }).toEqual({ url, status: 200 });
        expect(asset.body.length).toBeGreaterThan(0);
      }
      const init = await t.app.inject({ method: 'GET', url: '/docs/swagger-initializer.js' });
      expect(init.headers['content-type']).toMatch(/^application\/javascript/);
      expect(init.body).toContain('"/docs/openapi.json"');
    });

    it('is what `npm run openapi` writes: the offline document equals the served one', async () => {
      const offline = await generateOpenApiDocument(t.config, {
        extraImports: [OpenApiProbeModule],
        logger: new AppLogger(createPinoLogger('error')),
      });
      expect(offline).toEqual(document);
    });

    it('passes the Spectral ruleset CI applies to openapi.json, the OWASP rules included', async () => {
      // What `npm run openapi` writes: the application's own operations. (The probes are test-only; the
      // @Public() one is rightly flagged by OWASP rules that want every business read secured.)
      const application = await generateOpenApiDocument(t.config, {
        logger: new AppLogger(createPinoLogger('error')),
      });
      expect(await spectralLintDocument(application)).toEqual([]);
    });
  });

  describe('components', () => {
    it('has the ErrorCode enum of the one registry, and ViolationCode', () => {
      const schemas = document.components?.schemas as Record<string, SchemaObject>;
      expect(schemas.ErrorCode).toMatchObject({ type: 'string', enum: ERROR_CODE_NAMES });
      expect(schemas.ViolationCode).toMatchObject({ type: 'string', enum: [...VIOLATION_CODES] });
    });

    it('has the Problem schema, its code an ErrorCode, its violations Violations, and failedItems', () => {
      const schemas = document.components?.schemas as Record<string, SchemaObject>;
      expect(schemas.Problem).toMatchObject({
        type: 'object',
        required: ['type', 'status', 'title', 'detail', 'instance', 'code'],
        properties: {
          code: { $ref: '#/components/schemas/ErrorCode' },
          violations: { type: 'array', items: { $ref: '#/components/schemas/Violation' } },
          traceId: { type: 'string' },
          failedItems: {
            type: 'array',
            items: {
              required: ['index', 'code', 'detail'],
              properties: { code: { $ref: '#/components/schemas/ErrorCode' } },
            },
          },
        },
      });
      expect(schemas.Violation).toMatchObject({
        properties: { field: { type: 'string' }, code: { $ref: '#/components/schemas/ViolationCode' } },
      });
    });

    it('describes both page shapes of GET /orders, counts as integers', () => {
      const ok = operation(document, '/api/v1/orders', 'get').responses['200'] as {
        content: Record<string, { schema: SchemaObject }>;
      };
      expect(ok.content['application/json'].schema.oneOf).toEqual([
        { $ref: '#/components/schemas/OrderPageResponse' },
        { $ref: '#/components/schemas/OrderCursorPageResponse' },
      ]);
      const schemas = document.components?.schemas as Record<string, SchemaObject>;
      expect(schemas.OrderPageResponse.properties).toMatchObject({
        page: { type: 'integer' },
        size: { type: 'integer' },
        totalElements: { type: 'integer' },
        totalPages: { type: 'integer' },
      });
      expect(schemas.OrderCursorPageResponse).toMatchObject({
        required: expect.arrayContaining(['content', 'size', 'hasNext', 'hasPrev']),
        properties: {
          nextCursor: { type: 'string' },
          prevCursor: { type: 'string' },
          hasNext: { type: 'boolean' },
        },
      });
      expect(schemas.OrderCursorPageResponse.required).not.toContain('nextCursor');
    });

    it('declares the bearer JWT scheme', () => {
      expect(document.components?.securitySchemes?.bearer).toMatchObject({
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
      });
    });

    it('declares enums of DTOs as named components', () => {
      const schemas = document.components?.schemas as Record<string, SchemaObject>;
      expect(schemas.ProbeKind).toEqual({ type: 'string', enum: [...PROBE_KINDS] });
      const list = operation(document, PROBE_PATH, 'get');
      expect((list.parameters as ParameterObject[]).find((p) => p.name === 'kind')?.schema).toEqual({
        type: 'array',
        items: { $ref: '#/components/schemas/ProbeKind' },
      });
    });

    it('lists every tag its operations use', () => {
      const used = Object.values(document.paths).flatMap((item) =>
        [item.get, item.post, item.put, item.patch, item.delete].flatMap((op) => op?.tags ?? []),
      );
      expect(used).toContain('Probes');
      expect(document.tags).toEqual([...new Set(used)].sort().map((name) => ({ name })));
    });
  });

  describe('paths', () => {
    it('has business operations only, all under /api/v<N>/', () => {
      const paths = Object.keys(document.paths);
      expect(paths.length).toBeGreaterThan(0);
      for (const path of paths) expect(path).toMatch(/^\/api\/v\d+\//);
      for (const operational of ['/health', '/ready', '/info', '/metrics', '/docs', '/docs/openapi.json']) {
        expect(document.paths[operational]).toBeUndefined();
      }
    });
  });

  describe('@ApiEndpoint', () => {
    it('gives the operations read replicas may serve their lag promise, and no other operation', () => {
      const promised = Object.values(document.paths)
        .flatMap((item) => Object.values(item as Record<string, OperationObject>))
        .filter((op) => op.description?.includes(REPLICA_LAG_PROMISE))
        .map((op) => op.operationId)
        .sort();
      expect(promised).toEqual(
        [
          'exportCustomerData',
          'generateReport',
          'getDeliveryAddresses',
          'getOrderAttachments',
          'getOrders',
          'getOrdersV2',
          'getProducts',
          'getWebhookDeliveries',
          'getWebhookEndpoints',
          'searchOrders',
        ].sort(),
      );
    });

    it('sets operationId, summary and the one tag of the controller', () => {
      expect(operation(document, `${PROBE_PATH}/{probeId}`, 'get')).toMatchObject({
        operationId: 'getProbe',
        summary: 'Get a probe',
        tags: ['Probes'],
      });
    });

    it('declares a Problem response for each status the operation can answer, naming its codes', () => {
      const op = operation(document, `${PROBE_PATH}/{probeId}/confirm`, 'post');
      expect(Object.keys(op.responses).sort()).toEqual([
        '200',
        '400',
        '401',
        '403',
        '404',
        '409',
        '429',
        '500',
        '503',
      ]);
      for (const status of [400, 401, 403, 404, 409, 429, 500, 503]) {
        expect(response(op, status).content).toEqual({
          'application/problem+json': {
            schema: {
              allOf: [
                { $ref: '#/components/schemas/Problem' },
                {
                  type: 'object',
                  required: ['code'],
                  properties: { code: { $ref: '#/components/schemas/ConfirmProbeErrorCode' } },
                },
              ],
            },
          },
        });
      }
      expect(response(op, 400).description).toContain('VALIDATION_ERROR');
      expect(response(op, 401).description).toContain('UNAUTHORIZED');
      expect(response(op, 403).description).toContain('ACCESS_DENIED');
      expect(response(op, 404).description).toContain('ORDER_NOT_FOUND');
      // Two codes of one status share its response.
      expect(response(op, 409).description).toContain('INVALID_ORDER_STATE');
      expect(response(op, 409).description).toContain('CONCURRENT_MODIFICATION');
      expect(response(op, 500).description).toContain('INTERNAL_ERROR');
      expect(response(op, 503).description).toContain('SERVICE_UNAVAILABLE');
    });

    it("declares the operation's codes as its own enum: its errors, and those its declarations imply", () => {
      const schemas = document.components?.schemas as Record<string, SchemaObject>;
      const codesOf = (operationId: string) => schemas[operationErrorCodeName(operationId)];
      const always = ['VALIDATION_ERROR', 'RATE_LIMIT_EXCEEDED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'];
      // Each in the registry's order; `expect.arrayContaining` would let an extra code through.
      const expected: Record<string, string[]> = {
        // @Public(), no body: only what every operation answers.
        getProbes: always,
        // @Idempotent() and a JSON body.
        createProbe: [
          ...always,
          'UNAUTHORIZED',
          'IDEMPOTENCY_KEY_REUSED',
          'IDEMPOTENCY_KEY_IN_PROGRESS',
          'PAYLOAD_TOO_LARGE',
          'UNSUPPORTED_MEDIA_TYPE',
        ],
        getProbe: [...always, 'UNAUTHORIZED', 'ORDER_NOT_FOUND'],
        // @Roles() and conditional: 'write'.
        confirmProbe: [
          ...always,
          'UNAUTHORIZED',
          'ACCESS_DENIED',
          'ORDER_NOT_FOUND',
          'INVALID_ORDER_STATE',
          'CONCURRENT_MODIFICATION',
        ],
        // A multipart body.
        uploadProbeAttachment: [
          ...always,
          'UNAUTHORIZED',
          'ORDER_NOT_FOUND',
          'FILE_TOO_LARGE',
          'UNSUPPORTED_FILE_TYPE',
          'PAYLOAD_TOO_LARGE',
          'UNSUPPORTED_MEDIA_TYPE',
        ],
        // Deprecated: 410 once its sunset has passed.
        getProbeStatusLegacy: [...always, 'UNAUTHORIZED', 'ENDPOINT_REMOVED'],
      };
      for (const [operationId, codes] of Object.entries(expected)) {
        const ordered = ERROR_CODE_NAMES.filter((code) => codes.includes(code));
        expect({ operationId, enum: codesOf(operationId)?.enum }).toEqual({ operationId, enum: ordered });
        expect(codesOf(operationId)).toMatchObject({ type: 'string' });
      }
    });

    it('lists every code of an operation in the response of its status, and only there', () => {
      const schemas = document.components?.schemas as Record<string, SchemaObject>;
      for (const [path, item] of Object.entries(document.paths)) {
        for (const method of ['get', 'put', 'post', 'patch', 'delete'] as const) {
          const op = item[method];
          if (!op) continue;
          const errors = Object.entries(op.responses as Record<string, ResponseObject>).filter(([status]) =>
            /^[45]/.test(status),
          );
          const refs = errors.map(
            ([, r]) =>
              (r.content?.['application/problem+json'].schema as { allOf: SchemaObject[] }).allOf[1]
                .properties?.code as { $ref: string },
          );
          // One enum per operation, shared by its error responses.
          expect(new Set(refs.map((ref) => ref.$ref)).size).toBe(1);
          const codes = schemas[refs[0].$ref.replace('#/components/schemas/', '')].enum as ErrorCode[];
          const where = `${method.toUpperCase()} ${path}`;
          for (const [status, r] of errors) {
            const named = (r.description ?? '')
              .replace(/^[^:]*: /, '')
              .replace(/\.$/, '')
              .split(', ');
            expect({ where, status, named }).toEqual({
              where,
              status,
              named: codes.filter((code) => String(ERROR_CODES[code]) === status),
            });
          }
          expect({ where, statuses: errors.map(([status]) => status) }).toEqual({
            where,
            statuses: [...new Set(codes.map((code) => String(ERROR_CODES[code])))].sort(),
          });
        }
      }
    });

    it('every operation of the application declares what every operation answers, and its errors', () => {
      const schemas = document.components?.schemas as Record<string, SchemaObject>;
      const declared = declaredEndpoints(t.app);
      expect(declared.size).toBeGreaterThan(40);
      for (const [operationId, endpoint] of declared) {
        const codes = schemas[operationErrorCodeName(operationId)]?.enum;
        if (operationId === 'getProbeHistoryLegacy') {
          expect(codes).toBeUndefined(); // past its sunset: gone, with its enum
          continue;
        }
        expect({ operationId, codes }).toEqual({
          operationId,
          codes: expect.arrayContaining([
            'VALIDATION_ERROR',
            'RATE_LIMIT_EXCEEDED',
            'INTERNAL_ERROR',
            'SERVICE_UNAVAILABLE',
            ...(endpoint.options.errors ?? []),
          ]),
        });
      }
    });

    it('declares 429 with Retry-After and the RateLimit-* headers, and RateLimit-* on success', () => {
      const op = operation(document, `${PROBE_PATH}/{probeId}`, 'get');
      expect(Object.keys(response(op, 429).headers ?? {}).sort()).toEqual(
        ['Retry-After', ...RATE_LIMIT, 'Access-Control-Allow-Origin'].sort(),
      );
      expect(response(op, 429).description).toContain('RATE_LIMIT_EXCEEDED');
      expect(Object.keys(response(op, 200).headers ?? {})).toEqual(expect.arrayContaining(RATE_LIMIT));
    });

    it('takes security, 401 and 403 from @Public() and @Roles()', () => {
      const publicList = operation(document, PROBE_PATH, 'get');
      expect(publicList.security).toBeUndefined();
      expect(publicList.responses['401']).toBeUndefined();

      const get = operation(document, `${PROBE_PATH}/{probeId}`, 'get');
      expect(get.security).toEqual([{ bearer: [] }]);
      expect(get.responses['403']).toBeUndefined();

      const confirm = operation(document, `${PROBE_PATH}/{probeId}/confirm`, 'post');
      expect(confirm.description).toContain('Allowed roles: ADMIN.');
    });

    it('declares Location on a create, and the Idempotency-Key header of @Idempotent() with its 409 codes', () => {
      const op = operation(document, PROBE_PATH, 'post');
      expect(response(op, 201).headers).toHaveProperty('Location');
      expect(response(op, 201).content?.['application/json'].schema).toEqual({
        $ref: '#/components/schemas/ProbeResponse',
      });
      expect(headerParameters(op).find((p) => p.name === 'Idempotency-Key')).toMatchObject({
        required: true,
        schema: { type: 'string', format: 'uuid' },
      });
      expect(response(op, 409).description).toMatch(/IDEMPOTENCY_KEY_REUSED.*IDEMPOTENCY_KEY_IN_PROGRESS/);
    });

    it('declares conditional requests: If-None-Match with 304 and ETag, If-Match with its 409', () => {
      const read = operation(document, `${PROBE_PATH}/{probeId}`, 'get');
      expect(headerParameters(read).map((p) => p.name)).toContain('If-None-Match');
      expect(response(read, 304).headers).toHaveProperty('ETag');
      expect(response(read, 200).headers).toHaveProperty('ETag');

      const write = operation(document, `${PROBE_PATH}/{probeId}/confirm`, 'post');
      expect(headerParameters(write).map((p) => p.name)).toContain('If-Match');
      expect(response(write, 409).description).toContain('CONCURRENT_MODIFICATION');
    });

    it('declares the Accept-Language header on every operation', () => {
      for (const item of Object.values(document.paths)) {
        for (const op of [item.get, item.post, item.put, item.patch, item.delete].filter(Boolean)) {
          expect(headerParameters(op as OperationObject).map((p) => p.name)).toContain('Accept-Language');
        }
      }
    });
  });

  describe('@ApiMultipartFile', () => {
    it('declares the file part as binary with its size and types, and the maxLength of text parts', () => {
      const op = operation(document, `${PROBE_PATH}/{probeId}/attachments`, 'post');
      const body = (
        op.requestBody as { content: Record<string, { schema: SchemaObject; encoding: unknown }> }
      ).content['multipart/form-data'];
      expect(body.schema).toMatchObject({
        type: 'object',
        required: ['file'],
        properties: {
          file: { type: 'string', format: 'binary', maxLength: 10 * 1024 * 1024 },
          description: { type: 'string', maxLength: 500, pattern: expect.any(String) },
        },
      });
      expect(body.encoding).toEqual({ file: { contentType: 'application/pdf, image/png, image/jpeg' } });
      expect(response(op, 413).description).toContain('FILE_TOO_LARGE');
      expect(response(op, 415).description).toContain('UNSUPPORTED_FILE_TYPE');
    });
  });

  describe('deprecation', () => {
    it('flags a deprecated operation, names successor and sunset date, declares its headers', () => {
      const op = operation(document, `${PROBE_PATH}/{probeId}/status`, 'get');
      expect(op.deprecated).toBe(true);
      expect(op.description).toContain('/api/v2/openapi-probes/{probeId}');
      expect(op.description).toContain(t.config.versioning.legacyStatusSunset.toISOString().slice(0, 10));
      expect(Object.keys(response(op, 200).headers ?? {})).toEqual(
        expect.arrayContaining(['Deprecation', 'Sunset', 'Link']),
      );
    });

    it('leaves out an operation whose sunset has passed', () => {
      const removed = `${PROBE_PATH}/{probeId}/history`;
      expect(document.paths[removed]).toBeUndefined();
      // The same operation, documented while its sunset was still ahead.
      const earlier = buildOpenApiDocument(t.app, t.config, new Date(PAST_SUNSET.getTime() - 1));
      expect(operation(earlier, removed, 'get')).toMatchObject({
        deprecated: true,
        description: expect.stringContaining(PAST_SUNSET.toISOString().slice(0, 10)),
      });
    });
  });

  describe('errors the service answers are documented', () => {
    let admin: string;
    let customer: string;
    beforeAll(async () => {
      admin = await bearer(t.config, ['ADMIN']);
      customer = await bearer(t.config, ['CUSTOMER']);
    });

    /**
     * Each error path the probe can provoke: the body is Problem Details whose code is in the document's
     * ErrorCode enum, with the status that enum documents for it, and localized detail.
     */
    const cases: Array<{
      name: string;
      code: string;
      /** The operation that answers, when the request reaches one: its enum must hold the code. */
      answeredBy?: [path: string, method: 'get' | 'post'];
      request: () => InjectOptions;
    }> = [
      {
        name: 'unknown route',
        code: 'RESOURCE_NOT_FOUND',
        request: () => ({ method: 'GET', url: '/api/v1/nothing' }),
      },
      {
        name: 'unknown method',
        code: 'METHOD_NOT_ALLOWED',
        request: () => ({ method: 'DELETE', url: PROBE_PATH }),
      },
      {
        name: 'no token',
        code: 'UNAUTHORIZED',
        answeredBy: [`${PROBE_PATH}/{probeId}`, 'get'],
        request: () => ({ method: 'GET', url: `${PROBE_PATH}/p1` }),
      },
      {
        name: 'unknown order',
        code: 'ORDER_NOT_FOUND',
        answeredBy: [`${PROBE_PATH}/{probeId}`, 'get'],
        request: () => ({ method: 'GET', url: `${PROBE_PATH}/p1`, headers: { authorization: customer } }),
      },
      {
        name: 'role missing',
        code: 'ACCESS_DENIED',
        answeredBy: [`${PROBE_PATH}/{probeId}/confirm`, 'post'],
        request: () => ({
          method: 'POST',
          url: `${PROBE_PATH}/p1/confirm`,
          headers: { authorization: customer },
        }),
      },
      {
        name: 'state conflict',
        code: 'INVALID_ORDER_STATE',
        answeredBy: [`${PROBE_PATH}/{probeId}/confirm`, 'post'],
        request: () => ({
          method: 'POST',
          url: `${PROBE_PATH}/p1/confirm`,
          headers: { authorization: admin },
        }),
      },
      {
        name: 'malformed JSON',
        code: 'VALIDATION_ERROR',
        answeredBy: [PROBE_PATH, 'post'],
        request: () => ({
          method: 'POST',
          url: PROBE_PATH,
          headers: { authorization: admin, 'content-type': 'application/json' },
          payload: '{"kind": "PLAIN"',
        }),
      },
      {
        name: 'invalid field',
        code: 'VALIDATION_ERROR',
        answeredBy: [PROBE_PATH, 'post'],
        request: () => ({
          method: 'POST',
          url: PROBE_PATH,
          headers: {
            authorization: admin,
            'content-type': 'application/json',
            'idempotency-key': randomUUID(),
          },
          payload: JSON.stringify({ kind: 'UNKNOWN' }),
        }),
      },
      {
        name: 'unsupported media type',
        code: 'UNSUPPORTED_MEDIA_TYPE',
        answeredBy: [PROBE_PATH, 'post'],
        request: () => ({
          method: 'POST',
          url: PROBE_PATH,
          headers: { authorization: admin, 'content-type': 'text/plain' },
          payload: 'kind=PLAIN',
        }),
      },
      {
        name: 'body too large',
        code: 'PAYLOAD_TOO_LARGE',
        answeredBy: [PROBE_PATH, 'post'],
        request: () => ({
          method: 'POST',
          url: PROBE_PATH,
          headers: { authorization: admin, 'content-type': 'application/json' },
          payload: JSON.stringify({ kind: 'PLAIN', note: 'x'.repeat(t.config.http.bodyLimitBytes) }),
        }),
      },
    ];

    it.each(cases)('$name: $code', async ({ request, code, answeredBy }) => {
      const enumCodes = (document.components?.schemas?.ErrorCode as SchemaObject).enum;
      if (answeredBy) expect(operationCodes(document, operation(document, ...answeredBy))).toContain(code);
      const replies = await Promise.all(
        (['ru', 'en'] as const).map((lang) => {
          const options = request();
          return t.app.inject({ ...options, headers: { ...options.headers, 'accept-language': lang } });
        }),
      );
      for (const reply of replies) {
        const body = expectProblem(reply, ERROR_CODES[code as keyof typeof ERROR_CODES], code);
        expect(enumCodes).toContain(body.code);
        expect(body.status).toBe(reply.statusCode);
      }
      expect(replies[0].json().detail).not.toBe(replies[1].json().detail);
    });
  });
});

describe('OpenAPI document in production', () => {
  let t: TestApp;
  beforeAll(async () => {
    const env = {
      NODE_ENV: 'production',
      JWT_SECRET: 'production-secret-of-forty-characters-ok',
      WEBHOOK_SECRET_KEY: Buffer.alloc(32, 1).toString('base64'),
    };
    if (runRedis) {
      t = await bootTestApp(env);
      return;
    }
    // Production refuses to start without Redis: on the embedded store the test configuration gets the
    // production flag instead, which is all setupOpenApi reads.
    const config = loadConfig({ ...process.env, ...env, NODE_ENV: 'test' });
    config.app = { ...config.app, env: 'production', production: true };
    config.database.embedded = process.env.E2E_DATABASE_MODE === 'embedded';
    const app = await createHttpApp(config);
    await app.getHttpAdapter().getInstance().ready();
    t = { app, config, close: () => app.close() };
  });
  afterAll(() => t.close());

  it.each(['/docs', '/docs/openapi.json', '/docs/swagger-ui-bundle.js'])('%s does not exist', async (url) => {
    expect(t.config.app.production).toBe(true);
    const res = await t.app.inject({ method: 'GET', url });
    expectProblem(res, 404, 'RESOURCE_NOT_FOUND');
  });
});
