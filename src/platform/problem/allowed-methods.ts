import { FastifyInstance } from 'fastify';
import FindMyWay, { HTTPMethod } from 'find-my-way';

/** The router options Fastify routes with; the method index must match paths exactly as Fastify does. */
export interface RouteMatchingOptions {
  caseSensitive: boolean;
  ignoreTrailingSlash: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The methods that have a route matching this URL (empty for an unknown path), sorted. */
    allowedMethods(url: string): string[];
  }
}

const noop = (): void => undefined;

/**
 * Indexes every route Fastify registers (onRoute) in a find-my-way router of its own, one tree per method
 * as Fastify keeps them, so the not-found path can tell "no such resource" (404) from "no such method on
 * this resource" (405 with `Allow`). Route constraints are ignored: the question is only which methods a
 * path has. Register it before any route.
 */
export function registerAllowedMethods(fastify: FastifyInstance, options: RouteMatchingOptions): void {
  const router = FindMyWay(options);
  const methods = new Set<HTTPMethod>();
  fastify.addHook('onRoute', (route) => {
    // A catch-all route (CORS's `OPTIONS *` for preflights) says nothing about the methods of a resource.
    if (route.url === '*' || route.url === '/*') return;
    for (const method of [route.method].flat() as HTTPMethod[]) {
      methods.add(method);
      if (!router.hasRoute(method, route.url)) router.on(method, route.url, noop);
    }
  });
  fastify.decorate('allowedMethods', (url: string): string[] =>
    [...methods].filter((method) => matches(router.find(method, url))).sort(),
  );
}

/**
 * Nest's Fastify adapter sends a match with an empty path variable (`/orders/` for `/orders/:orderId`) to
 * the not-found handler (FastifyAdapter.requireNonEmptyParams); such a match is no match here either.
 */
function matches(found: { params: Record<string, string | undefined> } | null): boolean {
  if (!found) return false;
  return Object.entries(found.params).every(([name, value]) => name === '*' || value !== '');
}
