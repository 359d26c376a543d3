import { applyDecorators, RequestMapping, RequestMethod, SetMetadata } from '@nestjs/common';

/**
 * Aliases: reserved words in a path in place of an identifier, each standing for
 * exactly one resource the server selects from the request's context.
 * - `me`: the user of the bearer token (only right after `users/`);
 * - temporal and ordinal words: one resource by a selection rule (`latest`: the caller's most recent order);
 * - logical words: one resource by its role (`default`: the caller's default delivery address).
 */
export const ALIAS_WORDS = [
  'me',
  'latest',
  'current',
  'next',
  'previous',
  'first',
  'last',
  'default',
  'primary',
  'active',
  'draft',
] as const;
export type AliasWord = (typeof ALIAS_WORDS)[number];

/** A route path relative to its controller that starts with an alias word: `latest`, `me/settings`. */
export type AliasPath = AliasWord | `${AliasWord}/${string}`;

/** Metadata key of `@AliasRoute()`; the OpenAPI document builder describes the alias from it. */
export const ALIAS_ROUTE = 'http:alias-route';

export interface AliasRouteMetadata {
  word: AliasWord;
  /** What the word selects, in a few words: "the caller's most recent order". */
  selects: string;
}

export type AliasRouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What `me` always stands for: the identifier in the caller's token. */
export const ME_SELECTS = 'the caller: the user of the bearer token';

/**
 * Declares a literal alias route, e.g. in the `orders` controller
 *
 *   @AliasRoute('GET', 'latest', { selects: "the caller's most recent order" })
 *   async latest(@CurrentCaller() caller: Caller) { return sendOrder(reply, await this.reads.latest(caller)); }
 *
 * and in the `users` controller `@AliasRoute('GET', 'me/settings')` (`me` always selects the caller).
 * The handler resolves the word from the caller's token (`me`) or by its one selection rule in the owning
 * service, and answers exactly as the parametric route of the resource it selects would. Declare it above
 * the parametric routes of its controller: a literal route takes precedence over `{id}` (docs/versioning.md),
 * which Fastify's router guarantees, and registering aliases first keeps that true for any
 * router; `AliasRouteOrder` refuses to start the application otherwise. The OpenAPI description says what
 * the alias stands for.
 */
export function AliasRoute(method: AliasRouteMethod, path: 'me' | `me/${string}`): MethodDecorator;
export function AliasRoute(
  method: AliasRouteMethod,
  path: AliasPath,
  alias: { selects: string },
): MethodDecorator;
export function AliasRoute(
  method: AliasRouteMethod,
  path: AliasPath,
  alias: { selects: string } = { selects: ME_SELECTS },
): MethodDecorator {
  const metadata: AliasRouteMetadata = { word: path.split('/')[0] as AliasWord, selects: alias.selects };
  return applyDecorators(
    RequestMapping({ path, method: RequestMethod[method] }),
    SetMetadata(ALIAS_ROUTE, metadata),
  );
}

function isAliasWord(segment: string): segment is AliasWord {
  return (ALIAS_WORDS as readonly string[]).includes(segment);
}

const isParameter = (segment: string): boolean => segment.startsWith(':');

interface RegisteredRoute {
  method: string;
  url: string;
  segments: string[];
}

/**
 * Checks the business routes as Fastify registers them (its `onRoute` hook), in registration order:
 * - `me` stands only right after `users/` (`/api/v1/me` is invalid);
 * - an alias route is registered before every parametric route of the same method that would also match
 *   its path (`/orders/latest` before `/orders/:orderId`).
 * `problem()` says what is wrong with the next route, or undefined.
 */
export class AliasRouteOrder {
  private readonly routes: RegisteredRoute[] = [];

  problem(method: string, url: string): string | undefined {
    const route: RegisteredRoute = { method, url, segments: url.split('/').filter(Boolean) };
    if (route.segments[0] !== 'api') return undefined;
    this.routes.push(route);
    const aliasAt = route.segments.flatMap((segment, index) => (isAliasWord(segment) ? [index] : []));
    for (const index of aliasAt) {
      if (route.segments[index] === 'me' && route.segments[index - 1] !== 'users') {
        return `${method} ${url}: the alias "me" stands only right after "users/"`;
      }
      const shadowing = this.routes.find((earlier) => shadows(earlier, route, index));
      if (shadowing) {
        return (
          `${method} ${url}: the alias route is registered after ${shadowing.method} ${shadowing.url}, ` +
          'which matches it too; declare the alias route above the parametric one'
        );
      }
    }
    return undefined;
  }
}

/** Whether `earlier` (a parametric route) would match `alias`'s path, taking the alias word as its id. */
function shadows(earlier: RegisteredRoute, alias: RegisteredRoute, aliasIndex: number): boolean {
  return (
    earlier !== alias &&
    earlier.method === alias.method &&
    earlier.segments.length === alias.segments.length &&
    isParameter(earlier.segments[aliasIndex]) &&
    earlier.segments.every((segment, i) => isParameter(segment) || segment === alias.segments[i])
  );
}
