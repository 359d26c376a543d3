import 'reflect-metadata';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadConfigOrExit } from '../src/bootstrap/runtime';
import { HTTP_METHODS } from '../src/bootstrap/openapi/endpoint-conventions';
import { generateOpenApiDocument } from '../src/bootstrap/openapi/offline-document';

/**
 * Writes openapi.json at the repository root (npm run openapi; CI lints it with Spectral). Needs no
 * database or Redis: the document comes from the controllers' metadata (see generateOpenApiDocument).
 */
async function main(): Promise<void> {
  const document = await generateOpenApiDocument(loadConfigOrExit());
  // Compiled to dist/scripts/openapi.js: the repository root is two levels up.
  const target = path.resolve(__dirname, '..', '..', 'openapi.json');
  fs.writeFileSync(target, `${JSON.stringify(document, null, 2)}\n`);
  const operations = Object.values(document.paths).flatMap((item) => HTTP_METHODS.filter((m) => item[m]));
  console.log(`wrote ${target} (${operations.length} operations)`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`openapi: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
