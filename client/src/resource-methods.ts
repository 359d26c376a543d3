import type { ParseAs } from 'openapi-fetch';
import type { ProblemError } from './problem-error.js';
import {
  cursorItems,
  offsetItems,
  type CursorPage,
  type FollowOptions,
  type OffsetPage,
} from './list-pages.js';
import type { ListWalk, OperationCall, WalkOptions } from './resource-types.js';
import { RESOURCE_OPERATIONS, type Resources } from './generated/resources.js';

/** The options of a path-level call as the resource methods make them. */
export interface SendInit {
  params: { path?: Record<string, unknown>; query?: unknown; header?: unknown };
  body?: unknown;
  signal?: AbortSignal;
  parseAs: ParseAs;
}

/** A path-level call: the client's `request`, its failed answer already a `ProblemError`. */
export type Send = (
  method: OperationCall['method'],
  path: string,
  init: SendInit,
) => Promise<{ data?: unknown; error?: ProblemError<string>; response: Response }>;

/** The answer each resolved body came with, for `responseOf` (and so `ifMatch`). */
const responses = new WeakMap<object, Response>();

/**
 * The HTTP answer a resource method's body came with (its headers: `ETag`, `RateLimit-*`, `Deprecation`…), or
 * undefined for any other value.
 */
export function responseOf(body: unknown): Response | undefined {
  return typeof body === 'object' && body !== null ? responses.get(body) : undefined;
}

/**
 * The resource methods (`client.orders.confirm(orderId)`), built from the generated table: each sends its
 * operation through `send` and resolves with the body, or throws the `ProblemError` of a failed answer.
 */
export function resourceMethods(send: Send): Resources {
  const resources: Record<string, Record<string, unknown>> = {};
  for (const [resource, methods] of Object.entries(RESOURCE_OPERATIONS)) {
    const built: Record<string, unknown> = {};
    for (const [name, entry] of Object.entries(methods)) {
      if ('walks' in entry) continue;
      built[name] = callMethod(entry, send);
    }
    for (const [name, entry] of Object.entries(methods)) {
      if (!('walks' in entry)) continue;
      const listed = methods[entry.walks] as OperationCall;
      built[name] = walkMethod(entry, listed.pathParameters.length, built[entry.walks] as ListCall);
    }
    resources[resource] = built;
  }
  // Each method was built from the table generated beside `Resources`, for the operation it declares.
  return resources as unknown as Resources;
}

function callMethod(call: OperationCall, send: Send) {
  return async (...args: unknown[]): Promise<unknown> => {
    const at = call.pathParameters.length;
    const input = call.input ? args[at] : undefined;
    const options = (args[call.input ? at + 1 : at] ?? {}) as { headers?: unknown; signal?: AbortSignal };
    const result = await send(call.method, call.path, {
      params: {
        path: Object.fromEntries(call.pathParameters.map((name, index) => [name, args[index]])),
        ...(call.input === 'query' ? { query: input } : {}),
        header: options.headers,
      },
      ...(call.input === 'body' ? { body: input } : {}),
      signal: options.signal,
      parseAs: call.file ? 'blob' : 'json',
    });
    if (result.error) throw result.error;
    if (typeof result.data === 'object' && result.data !== null) responses.set(result.data, result.response);
    return result.data;
  };
}

type ListCall = (...args: unknown[]) => Promise<CursorPage<unknown> & OffsetPage<unknown>>;

function walkMethod(walk: ListWalk, pathCount: number, list: ListCall) {
  return (...args: unknown[]): AsyncGenerator<unknown, void, undefined> => {
    const path = args.slice(0, pathCount);
    const { follow, cursor, ...filters } = (args[pathCount] ?? {}) as {
      follow?: boolean | FollowOptions;
      cursor?: string;
    };
    const { signal, onCursor } = (args[pathCount + 1] ?? {}) as WalkOptions;
    if (walk.paging === 'offset')
      return offsetItems((page) => list(...path, { ...filters, page }, { signal }), { signal });
    return cursorItems(
      // An empty cursor asks for the first page of cursor paging.
      (at) => list(...path, { ...filters, cursor: at ?? '' }, { signal }),
      { follow, cursor, onCursor, signal },
    );
  };
}
