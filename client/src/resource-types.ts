import type {
  MediaType,
  OperationRequestBodyContent,
  ResponseObjectMap,
  SuccessResponse,
} from 'openapi-typescript-helpers';
import type { operations } from './generated/openapi.js';
import type { FollowOptions } from './list-pages.js';

/**
 * The types of the resource methods (`client.orders.confirm(…)`), by the operation's id in the document: the
 * generated `Resources` (generated/resources.ts) spells each method with them. None is generic in what the
 * caller passes, so a body or a query with a field the operation does not declare does not compile.
 */

/** The id of an operation of the document (`confirmOrder`). */
export type OperationId = keyof operations;

type ParametersOf<Id extends OperationId> = operations[Id]['parameters'];

/** A path parameter of the operation (`orderId`), given as a positional argument. */
export type PathParameter<Id extends OperationId, Name extends string> =
  NonNullable<ParametersOf<Id>['path']> extends infer Path
    ? Name extends keyof Path
      ? Path[Name]
      : never
    : never;

/** The operation's request body (JSON, a merge patch, or a form with a `Blob`/`File` for an upload). */
export type Body<Id extends OperationId> = NonNullable<OperationRequestBodyContent<operations[Id]>>;

/** The operation's query parameters. */
export type Query<Id extends OperationId> = NonNullable<ParametersOf<Id>['query']>;

/** What the operation resolves with: its success answer's body (a `Blob` for a file; `undefined` for a 204). */
export type Answer<Id extends OperationId> = SuccessResponse<ResponseObjectMap<operations[Id]>, MediaType>;

/** The header parameters of the operation, an `Idempotency-Key` optional (the client makes one). */
export type HeaderParameters<Id extends OperationId> =
  NonNullable<ParametersOf<Id>['header']> extends infer Header
    ? Omit<Header, 'Idempotency-Key'> &
        ('Idempotency-Key' extends keyof Header ? { 'Idempotency-Key'?: string } : unknown)
    : never;

/** What a resource method takes besides its path parameters and its body or query. */
export interface CallOptions<Id extends OperationId> {
  /** The operation's headers: `If-Match` (`ifMatch(read)`), your own `Idempotency-Key`, `Accept-Language`… */
  headers?: HeaderParameters<Id>;
  /** Aborts the call: it then rejects with an `AbortError`. */
  signal?: AbortSignal;
}

/** An answer of a list that pages either way (`GET /api/v1/orders`), as asked with a `cursor`. */
export type CursorPageAnswer<Id extends OperationId> = Extract<Answer<Id>, { hasNext: boolean }>;
/** An answer of a list that pages either way, as asked without a `cursor` (offset paging, `page`). */
export type OffsetPageAnswer<Id extends OperationId> = Exclude<Answer<Id>, { hasNext: boolean }>;

/** An item of a list operation's pages. */
export type Item<Id extends OperationId> =
  Answer<Id> extends { content: Array<infer Element> } ? Element : never;

/**
 * The query of a walk over a cursor-paged list (`all()`): the filters, `size` (the page size of the walk),
 * `cursor` (where to resume: a cursor `onCursor` was told earlier) and, for a list whose every page carries a
 * cursor to resume from (the event feed), `follow`: keep polling at the end instead of stopping.
 */
export type CursorWalkQuery<Id extends OperationId> = Omit<Query<Id>, 'page' | 'cursor'> & {
  cursor?: string;
} & (Answer<Id> extends { nextCursor: string } ? { follow?: boolean | FollowOptions } : unknown);

/** The query of a walk over an offset-paged list (`all()`): the filters and `size`, the page size of the walk. */
export type OffsetWalkQuery<Id extends OperationId> = Omit<Query<Id>, 'page'>;

/** What a walk over a list takes besides its query. */
export interface WalkOptions {
  /** Stops the walk, also while it waits to follow: the loop then throws an `AbortError`. */
  signal?: AbortSignal;
  /** Cursor-paged lists: told the cursor to resume from once a page's items have all been consumed. */
  onCursor?: (cursor: string) => void;
}

/** How the client calls an operation: the generated table (generated/resources.ts) gives one per method. */
export interface OperationCall {
  operationId: OperationId;
  method: 'get' | 'put' | 'post' | 'patch' | 'delete';
  path: string;
  /** The path parameters in the order the method takes them. */
  pathParameters: readonly string[];
  /** What the argument after the path parameters is: the body, the query, or none. */
  input?: 'body' | 'query';
  /** The answer is a file: read as a `Blob`. */
  file?: true;
}

/** A walk over every item of a list (`all()`): the method that gets a page, and how the list pages. */
export interface ListWalk {
  walks: string;
  paging: 'cursor' | 'offset';
}
