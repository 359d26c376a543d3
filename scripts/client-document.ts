import type { OpenAPIObject } from '@nestjs/swagger';
import { generateOpenApiDocument } from '../src/bootstrap/openapi/offline-document';
import { loadConfig } from '../src/platform/config/app-config';

/**
 * The instant the client's generated types describe the API as of. A deprecated operation stays in them
 * until this date is moved past its sunset (and `npm run client:generate` run), on purpose: the clock
 * passing a sunset never changes the committed types, nor fails the check that compares them.
 */
export const CLIENT_DOCUMENT_AS_OF = new Date('2026-11-26T00:00:00Z');

/**
 * The document the client is generated from: built offline (no database, Redis or queue) with the default
 * settings rather than this shell's environment, as of `CLIENT_DOCUMENT_AS_OF`.
 */
export function clientDocument(): Promise<OpenAPIObject> {
  return generateOpenApiDocument(loadConfig({}), { now: CLIENT_DOCUMENT_AS_OF });
}
