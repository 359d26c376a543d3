import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { AppModule, ModuleImports } from './app.module';
import { AppConfig } from '../platform/config/app-config';
import { useProcessLogger } from '../platform/logging/app-logger';
import { ShutdownState } from '../platform/health/shutdown-state';
import { MetricsService } from '../platform/metrics/metrics.service';
import { AliasRouteOrder } from '../platform/http/alias-route';
import { corsResponseHeaders, registerCors } from '../platform/http/cors';
import { API_SECURITY_HEADERS, registerSecurityHeaders } from '../platform/http/security-headers';
import { applyApiRouting } from '../platform/http/api-routing';
import { RequestTransaction } from '../platform/http/request-transaction';
import { registerUriLengthLimit } from '../platform/http/uri-length.hook';
import { registerAllowedMethods } from '../platform/problem/allowed-methods';
import { renderClientErrors, renderFrameworkErrors } from '../platform/problem/framework-errors';
import { ProblemRenderer } from '../platform/problem/problem-renderer';
import { ProblemDetailsFilter } from '../platform/problem/problem-details.filter';
import { registerTracing } from '../platform/tracing/tracing.hooks';
import { registerJsonBodyParsers } from '../platform/validation/json-body';
import { unversionedRouteProblem } from '../platform/versioning/api-version';
import { registerMultipartBodies } from '../platform/validation/multipart-body';
import { setupOpenApi } from './openapi/openapi-document';

/**
 * Builds the HTTP application with every global mechanism wired; main.ts and the e2e tests both use it,
 * so tests exercise exactly what runs in production.
 */
export async function createHttpApp(
  config: AppConfig,
  options: { extraImports?: ModuleImports } = {},
): Promise<NestFastifyApplication> {
  const routerOptions = { caseSensitive: true, ignoreTrailingSlash: false };
  // Set once the Nest application exists, which is before the server takes requests.
  const problems: { filter?: ProblemDetailsFilter; renderer?: ProblemRenderer } = {};
  const adapter = new FastifyAdapter({
    bodyLimit: config.http.bodyLimitBytes,
    trustProxy: config.http.trustProxy,
    // While draining, requests on kept-alive connections are still served (and told to close) instead
    // of getting Fastify's own non-problem 503.
    return503OnClosing: false,
    routerOptions,
    frameworkErrors: withPreRoutingHeaders(
      config,
      renderFrameworkErrors(() => problems.filter),
    ),
    // What Node's HTTP parser refuses (431, 408, 400) is Problem Details too, with the security headers.
    clientErrorHandler: renderClientErrors(() => problems.renderer, API_SECURITY_HEADERS),
  });
  const fastify = adapter.getInstance();
  registerTracing(fastify);
  // Security headers and CORS on every route, answers before authentication included (a preflight).
  registerSecurityHeaders(fastify);
  await registerCors(fastify, config.http.corsOrigins);
  // After them: a 414 carries them too.
  registerUriLengthLimit(fastify);
  // Bodies are JSON (plain or Merge Patch), or multipart uploads streamed to the routes that take them;
  // plain text is no body format of this API (415).
  registerJsonBodyParsers(fastify);
  await registerMultipartBodies(fastify);
  fastify.removeContentTypeParser('text/plain');
  // Before any route exists: the index of methods per path behind 405 Method Not Allowed, and the checks
  // that refuse to start with an unversioned business route or an alias route after its parametric twin.
  registerAllowedMethods(fastify, routerOptions);
  checkRoutes(fastify);

  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forHttp(config, options.extraImports),
    adapter,
    {
      logger: useProcessLogger(config.app.logLevel),
      abortOnError: false,
      // The body parsers are the ones registered above: Nest's would replace the JSON one and add a form one.
      bodyParser: false,
    },
  );
  // Before Nest registers its routes (at init): changing routes run in the request's transaction.
  app.get(RequestTransaction).register(fastify);
  problems.filter = app.get(ProblemDetailsFilter);
  problems.renderer = app.get(ProblemRenderer);
  applyApiRouting(app);
  app.get(MetricsService).instrument(fastify);
  // Responses finished while shutting down close their keep-alive connection, so the server can drain.
  const shutdown = app.get(ShutdownState);
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (shutdown.isShuttingDown) void reply.header('connection', 'close');
    done(null, payload);
  });
  setupOpenApi(app, config);
  await app.init();
  return app;
}

/**
 * Errors Fastify answers before routing run no hook: they get the security and CORS headers every other
 * response gets from its hooks here.
 */
function withPreRoutingHeaders(
  config: AppConfig,
  render: ReturnType<typeof renderFrameworkErrors>,
): ReturnType<typeof renderFrameworkErrors> {
  return (error, request, reply) => {
    void reply
      .headers(API_SECURITY_HEADERS)
      .headers(corsResponseHeaders(config.http.corsOrigins, request.headers.origin));
    render(error, request, reply);
  };
}

/** Every route as Fastify registers it: versioned under /api, aliases in order. */
function checkRoutes(fastify: FastifyInstance): void {
  const aliases = new AliasRouteOrder();
  fastify.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      const problem = unversionedRouteProblem(route.url) ?? aliases.problem(method, route.url);
      if (problem) throw new Error(problem);
    }
  });
}
