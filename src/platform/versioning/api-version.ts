import { Controller } from '@nestjs/common';

/**
 * The API versions this service serves, each as `/api/v<N>/` (an integer, never a
 * minor or a date). A version is added here only for a breaking change (docs/versioning.md).
 */
export const API_VERSIONS = [1, 2] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

/**
 * The one way to declare which API version a set of routes serves: `@VersionedController('orders', 2)`
 * serves `/api/v2/orders/...` (Nest's URI versioning, enabled by `applyApiRouting`, writes the `v<N>`
 * segment). The version belongs to the controller, never to a single route: the routes of one version of a
 * resource sit together, and a v2 controller differs from its v1 sibling in payload mapping only.
 */
export function VersionedController(path: string, version: ApiVersion): ClassDecorator {
  return Controller({ path, version: String(version) });
}

/** `/api`, or `/api/` and more: the business routes. */
const API_PATH = /^\/api(\/|$)/;
/** `/api/v<N>` followed by a path; N without leading zeros. */
const VERSIONED_API_PATH = /^\/api\/v([1-9][0-9]*)\//;

/**
 * Why a route cannot be served, or undefined when it can: a business route must live under
 * `/api/v<N>/` for a served N, so a controller declared without a version (which
 * Nest would serve at `/api/orders`) or with another one stops the application from starting.
 */
export function unversionedRouteProblem(url: string): string | undefined {
  if (!API_PATH.test(url)) return undefined;
  const version = VERSIONED_API_PATH.exec(url)?.[1];
  if (version === undefined) {
    return `${url} is a business route without an API version: declare it with @VersionedController(path, version)`;
  }
  if (!(API_VERSIONS as readonly number[]).includes(Number(version))) {
    return `${url} serves API version ${version}, which is not one of API_VERSIONS (${API_VERSIONS.join(', ')})`;
  }
  return undefined;
}
