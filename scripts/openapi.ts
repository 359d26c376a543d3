import 'reflect-metadata';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { generateOpenApiDocument } from '../src/bootstrap/openapi/offline-document';
import { ConfigError, loadConfig } from '../src/platform/config/app-config';
import { exitWithError, useProcessLogger } from '../src/platform/logging/app-logger';

/**
 * Writes openapi.json at the repository root, or at the path given as its argument (npm run openapi; CI
 * lints it with Spectral), and prints that path and nothing else. Needs no database or Redis: the document
 * comes from the controllers' metadata (see generateOpenApiDocument). Only errors are logged (as JSON).
 */
async function main(): Promise<void> {
  useProcessLogger('error');
  let config;
  try {
    config = loadConfig();
  } catch (error: unknown) {
    if (error instanceof ConfigError) exitWithError(error.message);
    throw error;
  }
  const document = await generateOpenApiDocument(config);
  // Compiled to dist/scripts/openapi.js: the repository root is two levels up.
  const target = path.resolve(process.argv[2] ?? path.join(__dirname, '..', '..', 'openapi.json'));
  fs.writeFileSync(target, `${JSON.stringify(document, null, 2)}\n`);
  console.log(target);
}

main().then(
  () => process.exit(0),
  (error: unknown) =>
    exitWithError(`openapi: ${error instanceof Error ? error.message : String(error)}`, error),
);
