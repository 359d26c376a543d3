import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { DOCS_SECURITY_HEADERS } from '../../platform/http/security-headers';

/**
 * The Swagger UI assets this page uses, by file name. @nestjs/swagger would serve them through
 * @fastify/static; serving this short list ourselves needs no extra dependency and exposes nothing else.
 */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/** swagger-ui-dist is @nestjs/swagger's dependency: resolve it from there, not from our own manifest. */
function assetsDirectory(): string {
  const requireFromSwagger = createRequire(require.resolve('@nestjs/swagger'));
  return path.dirname(requireFromSwagger.resolve('swagger-ui-dist/package.json'));
}

function page(base: string): string {
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>Order Service API</title>
    <link rel="stylesheet" type="text/css" href="${base}/swagger-ui.css" />
    <link rel="stylesheet" type="text/css" href="${base}/index.css" />
    <link rel="icon" type="image/png" href="${base}/favicon-32x32.png" sizes="32x32" />
    <link rel="icon" type="image/png" href="${base}/favicon-16x16.png" sizes="16x16" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${base}/swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="${base}/swagger-ui-standalone-preset.js" charset="UTF-8"></script>
    <script src="${base}/swagger-initializer.js" charset="UTF-8"></script>
  </body>
</html>
`;
}

function initializer(documentUrl: string): string {
  return `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(documentUrl)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    persistAuthorization: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
  });
};
`;
}

/** Registers the UI page at `base` and its assets under it. */
export function serveSwaggerUi(fastify: FastifyInstance, base: string, documentUrl: string): void {
  const directory = assetsDirectory();
  const html = page(base);
  const script = initializer(documentUrl);
  // The UI's own security headers: its Content-Security-Policy lets the page load what it needs from here.
  const options = { config: { securityHeaders: DOCS_SECURITY_HEADERS } };
  fastify.get(base, options, async (_request, reply) => reply.type('text/html; charset=utf-8').send(html));
  // The address people type with a slash leads to the same page (the router tells the two apart).
  fastify.get(`${base}/`, options, async (_request, reply) => reply.redirect(base, 301));
  fastify.get(`${base}/swagger-initializer.js`, options, async (_request, reply) =>
    reply.type('application/javascript; charset=utf-8').send(script),
  );
  for (const [file, type] of Object.entries(ASSETS)) {
    fastify.get(`${base}/${file}`, options, async (_request, reply) =>
      reply.type(type).send(fs.createReadStream(path.join(directory, file))),
    );
  }
}
