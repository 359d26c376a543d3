import type { INestApplication } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, type OpenAPIObject, type SchemaObject, SwaggerModule } from '@nestjs/swagger';
import type { AppConfig } from '../../platform/config/app-config';
import { BEARER_SCHEME, declaredSchemas, problemComponents } from '../../platform/openapi/components';
import { namedEnumSchemas } from '../../platform/validation/fields';
import { Clock } from '../../platform/versioning/clock';
import {
  applyEndpointConventions,
  closeRequestBodies,
  HTTP_METHODS,
  nextSunset,
} from './endpoint-conventions';
import { serveSwaggerUi } from './swagger-ui';

export const DOCS_PATH = '/docs';
export const DOCS_JSON_PATH = '/docs/openapi.json';

/**
 * The OpenAPI document of an application: every controller it mounts (operational ones exclude
 * themselves), completed by the endpoint conventions, plus the Problem Details components and the bearer
 * scheme. `now` decides which deprecated operations are past their sunset.
 */
export function buildOpenApiDocument(
  app: INestApplication,
  config: AppConfig,
  now = new Date(),
): OpenAPIObject {
  const base = new DocumentBuilder()
    .setTitle('Order Service API')
    .setDescription(
      'Orders, their items and domain actions, batches, long-running tasks and files. Errors are RFC 9457 ' +
        'Problem Details (`application/problem+json`) whose `detail` follows `Accept-Language` (`ru`, `en`); ' +
        'business responses carry `RateLimit-*` headers and `traceparent`.',
    )
    .setVersion(config.app.version)
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description:
          'Access token with the claims `sub` (user id), `roles` (`CUSTOMER`, `ADMIN`) and `exp`. Verified as ' +
          'RFC8725 (JSON Web Token Best Current Practices) asks: the algorithm is pinned per key source ' +
          "(HS256 with the shared key, RS256/ES256 with the identity provider's keys), `alg: none` and " +
          'algorithm confusion are refused, `exp` is required, issuer and audience are checked when configured.',
      },
      BEARER_SCHEME,
    )
    .build();
  // Without auto-tagging an untagged controller fails the lint instead of being tagged with its class name.
  const document = SwaggerModule.createDocument(app, base, { autoTagControllers: false });
  // DocumentBuilder.setContact always writes url and email, and empty ones are invalid.
  document.info.contact = { name: 'Order Service team' };
  // Paths are absolute (/api/v<N>/...): the server is the host that serves the document, whichever
  // environment that is; clients outside the company use it (OWASP API9: audience and environment).
  const server: NonNullable<OpenAPIObject['servers']>[number] & { 'x-internal': boolean } = {
    url: '/',
    description: 'The deployment serving this document (local, staging or production)',
    'x-internal': false,
  };
  document.servers = [server];
  document.components = {
    ...document.components,
    schemas: {
      ...document.components?.schemas,
      ...declaredSchemas(),
      ...referencedEnums(document),
      ...problemComponents(),
    },
  };
  applyEndpointConventions(document, app, config, now);
  closeRequestBodies(document);
  document.tags = usedTags(document);
  return document;
}

/** The enum components (`oneOf` kinds) the document refers to; Swagger declares only some of them. */
function referencedEnums(document: OpenAPIObject): Record<string, SchemaObject> {
  const text = JSON.stringify(document);
  return Object.fromEntries(
    Object.entries(namedEnumSchemas()).filter(([name]) => text.includes(`"#/components/schemas/${name}"`)),
  );
}

/** The global tag list is the set of tags operations use, so a tag is declared only on its controller. */
function usedTags(document: OpenAPIObject): Array<{ name: string }> {
  const names = new Set(
    Object.values(document.paths).flatMap((item) =>
      HTTP_METHODS.flatMap((method) => item[method]?.tags ?? []),
    ),
  );
  return [...names].sort().map((name) => ({ name }));
}

/**
 * Serves the interactive documentation at /docs and the document at /docs/openapi.json outside
 * production only (docs/decisions/0024-openapi.md). Both are plain Fastify routes outside
 * /api: no token, no rate limit. The document is built on the first request and kept until the next
 * sunset of a deprecated operation passes (by the same `Clock` as `DeprecationGuard`): then it is built
 * again without that operation, so the document and the 410 change together, with no redeploy.
 */
export function setupOpenApi(app: NestFastifyApplication, config: AppConfig): void {
  if (config.app.production) return;
  const clock = app.get(Clock);
  let served: { json: string; validUntil: number } | undefined;
  const fastify = app.getHttpAdapter().getInstance();
  fastify.get(DOCS_JSON_PATH, async (_request, reply) => {
    const now = clock.now();
    if (!served || now.getTime() >= served.validUntil) {
      served = {
        json: JSON.stringify(buildOpenApiDocument(app, config, now)),
        validUntil: nextSunset(app, config, now)?.getTime() ?? Number.POSITIVE_INFINITY,
      };
    }
    return reply.type('application/json; charset=utf-8').send(served.json);
  });
  serveSwaggerUi(fastify, DOCS_PATH, DOCS_JSON_PATH);
}
