import createClient, {
  defaultBodySerializer,
  type FetchResponse,
  type MaybeOptionalInit,
  type Middleware,
} from 'openapi-fetch';
import type { HttpMethod, MediaType, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import { attemptingFetch, type RetryOptions, type TokenSource } from './attempts.js';
import { cursorItems, type FollowOptions } from './cursor-pages.js';
import type { components, operations, paths } from './generated/openapi.js';
import { IDEMPOTENT_OPERATIONS, JSON_BODY_MEDIA_TYPES } from './generated/operations.js';
import { isProblem, ProblemError, UnexpectedResponseError } from './problem-error.js';

export interface ClientOptions {
  /** Where the service is: `https://orders.example.com` (the API's paths start with `/api/v<N>/`). */
  baseUrl: string;
  /** The bearer token, or a function returning the current one; it is asked before every attempt. */
  token?: TokenSource;
  /** `Accept-Language` of every call (`ru` or `en`): the language of `detail` and violation messages. */
  language?: string;
  /** Each attempt's limit in milliseconds (default 30 000); past it the attempt fails with a `TimeoutError`. */
  timeoutMs?: number;
  /** Retries of calls that are safe to retry (default: 3 attempts); `false` for none. */
  retry?: RetryOptions | false;
  /** The `fetch` to send with (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
}

const DEFAULT_RETRY: Required<RetryOptions> = { attempts: 3, baseDelayMs: 250, maxDelayMs: 20_000 };
const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The operations as the client takes them: like the document's, except that an `Idempotency-Key` is
 * optional where the document requires it, since the client makes one for every call that takes one.
 */
export type ClientPaths = {
  [Path in keyof paths]: { [Method in keyof paths[Path]]: WithOptionalKey<paths[Path][Method]> };
};
type WithOptionalKey<Operation> = Operation extends { parameters: { header: infer Header } }
  ? Header extends { 'Idempotency-Key': string }
    ? Omit<Operation, 'parameters'> & {
        parameters: Omit<Operation['parameters'], 'header'> &
          OptionalWhenEmpty<Omit<Header, 'Idempotency-Key'> & { 'Idempotency-Key'?: string }>;
      }
    : Operation
  : Operation;
type OptionalWhenEmpty<Header> =
  RequiredKeysOf<Header> extends never ? { header?: Header } : { header: Header };

/** The codes in the error bodies of an operation's answers. */
type CodeOf<Body> = Body extends { code: infer Code extends string } ? Code : never;

/** openapi-fetch's result, with the error as a `ProblemError` of the operation's own codes. */
export type CallResult<Result> = Result extends { error: infer Body; data?: never }
  ? { data?: never; error: ProblemError<CodeOf<Body>>; response: Response }
  : Result;

type InitParam<Init> = RequiredKeysOf<Init> extends never ? [Init?] : [Init];

/** A method of the client: `client.GET('/api/v1/orders/{orderId}', { params: { path: { orderId } } })`. */
export type CallMethod<Method extends HttpMethod> = <
  Path extends PathsWithMethod<ClientPaths, Method>,
  Init extends MaybeOptionalInit<ClientPaths[Path], Method>,
>(
  path: Path,
  ...init: InitParam<Init>
) => Promise<CallResult<FetchResponse<OperationOf<ClientPaths[Path][Method]>, Init, MediaType>>>;
type OperationOf<Operation> = Operation extends Record<string | number, unknown> ? Operation : never;

/** An order as v1 reads it. */
export type Order = components['schemas']['OrderResponse'];
/** The filters of `GET /api/v1/orders`, and `size`, the page size of the walk. */
export type OrderFilters = Omit<
  NonNullable<operations['getOrders']['parameters']['query']>,
  'page' | 'cursor'
>;

/** An event of the feed: an order event or a task event, told apart by `type`. */
export type Event = components['schemas']['Event'];
/** An event's type. */
export type EventType = Event['type'];
/**
 * The feed's filters (`type`, `orderId`, `customerId`), `size` (the page size of the walk), `cursor` (where to
 * resume: a `nextCursor` stored earlier) and `follow`: keep polling at the end instead of stopping.
 */
export type EventFeedQuery = NonNullable<operations['getEvents']['parameters']['query']> & {
  follow?: boolean | FollowOptions;
};

export interface OrderServiceClient {
  GET: CallMethod<'get'>;
  POST: CallMethod<'post'>;
  PUT: CallMethod<'put'>;
  PATCH: CallMethod<'patch'>;
  DELETE: CallMethod<'delete'>;
  orders: {
    /**
     * Every order the caller may see that matches `filters`, in the list's order, fetched a page at a time
     * by cursor; throws the `ProblemError` of a page that fails.
     */
    all(filters?: OrderFilters, options?: { signal?: AbortSignal }): AsyncGenerator<Order, void, undefined>;
  };
  events: {
    /**
     * The change feed (admin): every event matching the filters, oldest first, each once, a page at a time.
     * Stops where the feed ends for now (`hasNext: false`) unless `follow`, which then polls for more,
     * waiting longer while nothing comes (`FollowOptions`), until `signal` aborts. `onCursor` is told where
     * to resume after each page (store it, pass it back as `cursor`). Throws the `ProblemError` of a page
     * that fails (CURSOR_EXPIRED: the events after the cursor are no longer kept).
     */
    all(
      query?: EventFeedQuery,
      options?: { signal?: AbortSignal; onCursor?: (cursor: string) => void },
    ): AsyncGenerator<Event, void, undefined>;
  };
}

/**
 * A client of the Order Service. Every call is an openapi-fetch call typed by the service's document,
 * answering `{ data, response }` or `{ error, response }` with `error` a `ProblemError`; it also
 * - sends the token (`Authorization: Bearer …`) and `Accept-Language`,
 * - gives every call that takes an `Idempotency-Key` a new one unless the call names its own,
 * - sends a JSON body as the media type its operation takes (a merge patch as `application/merge-patch+json`),
 * - retries what is safe to retry (see `RetryOptions`) with the same key, and limits each attempt in time.
 * A call rejects only when no answer came (network, timeout, abort) or the answer is not the service's
 * (`UnexpectedResponseError`).
 */
export function createOrderServiceClient(options: ClientOptions): OrderServiceClient {
  const client = createClient<ClientPaths>({
    baseUrl: options.baseUrl,
    bodySerializer: serializeBody,
    fetch: attemptingFetch({
      fetch: options.fetch ?? ((request) => globalThis.fetch(request)),
      token: options.token,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      retry:
        options.retry === false ? { ...DEFAULT_RETRY, attempts: 1 } : { ...DEFAULT_RETRY, ...options.retry },
    }),
  });
  client.use(callHeaders(options.language));

  const method =
    <Method extends HttpMethod>(name: Method): CallMethod<Method> =>
    async (path, ...init) => {
      const result = await client.request(name, path, ...(init as [never]));
      return callResult(result) as never;
    };

  const self: OrderServiceClient = {
    GET: method('get'),
    POST: method('post'),
    PUT: method('put'),
    PATCH: method('patch'),
    DELETE: method('delete'),
    orders: {
      all: (filters = {}, { signal } = {}) =>
        cursorItems(
          async (cursor) => {
            const { data, error } = await self.GET('/api/v1/orders', {
              // An empty cursor asks for the first page of cursor paging.
              params: { query: { ...filters, cursor: cursor ?? '' } },
              signal,
            });
            if (error) throw error;
            if (!('hasNext' in data))
              throw new Error('GET /api/v1/orders answered an offset page to a cursor');
            return data;
          },
          { signal },
        ),
    },
    events: {
      all: ({ follow, cursor, ...filters } = {}, { signal, onCursor } = {}) =>
        cursorItems(
          async (at) => {
            const { data, error } = await self.GET('/api/v1/events', {
              params: { query: { ...filters, ...(at === undefined ? {} : { cursor: at }) } },
              signal,
            });
            if (error) throw error;
            return data;
          },
          { follow, cursor, onCursor, signal },
        ),
    },
  };
  return self;
}

/**
 * Per call, before its attempts: the `Idempotency-Key` of a call that takes one, the media type of a JSON
 * body the operation takes as another type (`application/merge-patch+json`), and the language.
 */
function callHeaders(language: string | undefined): Middleware {
  return {
    onRequest({ request, schemaPath }) {
      const operation = `${request.method} ${schemaPath}`;
      if (IDEMPOTENT_OPERATIONS.has(operation) && !request.headers.has('Idempotency-Key')) {
        request.headers.set('Idempotency-Key', crypto.randomUUID());
      }
      const mediaType = JSON_BODY_MEDIA_TYPES.get(operation);
      if (mediaType && request.headers.get('Content-Type') === 'application/json') {
        request.headers.set('Content-Type', mediaType);
      }
      if (language && !request.headers.has('Accept-Language'))
        request.headers.set('Accept-Language', language);
      return request;
    },
  };
}

/**
 * A body with a file in it (a `Blob`, or a `File` with its name) is a `multipart/form-data` form, as the upload
 * operations take it: fetch sets its type and boundary. Any other body is JSON.
 */
function serializeBody(body: unknown): string | FormData {
  if (
    typeof body !== 'object' ||
    body === null ||
    !Object.values(body).some((value) => value instanceof Blob)
  ) {
    return defaultBodySerializer(body);
  }
  const form = new FormData();
  for (const [name, value] of Object.entries(body)) {
    if (value !== undefined) form.append(name, value instanceof Blob ? value : String(value));
  }
  return form;
}

/** A failed answer becomes a `ProblemError`, or rejects the call when it is not the service's. */
function callResult(result: { data?: unknown; error?: unknown; response: Response }) {
  const { response } = result;
  if (response.ok) return result;
  const problemType = (response.headers.get('Content-Type') ?? '').startsWith('application/problem+json');
  if (!problemType || !isProblem(result.error)) throw new UnexpectedResponseError(response, result.error);
  return { error: new ProblemError(result.error), response };
}

/**
 * `If-Match` for a change that must apply only to the version read before: pass the read's result,
 * `header: { ...ifMatch(read) }`; the change is then 409 `CONCURRENT_MODIFICATION` if someone else's came
 * first.
 */
export function ifMatch(read: { response: Response }): { 'If-Match': string } {
  const etag = read.response.headers.get('ETag');
  if (!etag) throw new Error(`the answer of ${read.response.url || 'the read'} has no ETag`);
  return { 'If-Match': etag };
}
