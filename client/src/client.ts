import createClient, {
  defaultBodySerializer,
  type FetchOptions,
  type FetchResponse,
  type Middleware,
  type ParseAs,
} from 'openapi-fetch';
import type { HttpMethod, MediaType, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import { attemptingFetch, type RetryOptions, type TokenSource } from './attempts.js';
import type { components, paths } from './generated/openapi.js';
import { IDEMPOTENT_OPERATIONS, JSON_BODY_MEDIA_TYPES } from './generated/operations.js';
import type { Resources } from './generated/resources.js';
import { isProblem, ProblemError, UnexpectedResponseError } from './problem-error.js';
import { resourceMethods, responseOf, type Send, type SendInit } from './resource-methods.js';
import type { CursorWalkQuery, OperationCall } from './resource-types.js';
import { taskWaits, type TaskWaits } from './task-waits.js';

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

/**
 * The options of a path-level call: openapi-fetch's, not inferred from the argument (so a body or a query with a
 * field the operation does not declare does not compile), with `parseAs` saying how the answer is read.
 */
type CallInit<Operation, As extends ParseAs> = Omit<FetchOptions<Operation>, 'parseAs'> & { parseAs?: As };
type InitArguments<Init> = RequiredKeysOf<Init> extends never ? [init?: Init] : [init: Init];

/** A method of the client: `client.GET('/api/v1/orders/{orderId}', { params: { path: { orderId } } })`. */
export type CallMethod<Method extends HttpMethod> = <
  Path extends PathsWithMethod<ClientPaths, Method>,
  As extends ParseAs = 'json',
>(
  path: Path,
  ...init: InitArguments<CallInit<OperationOf<ClientPaths[Path][Method]>, As>>
) => Promise<CallResult<FetchResponse<OperationOf<ClientPaths[Path][Method]>, { parseAs: As }, MediaType>>>;
type OperationOf<Operation> = Operation extends Record<string | number, unknown> ? Operation : never;

/** An order as v1 reads it. */
export type Order = components['schemas']['OrderResponse'];
/** The filters of `GET /api/v1/orders`, and `size`, the page size of the walk (`client.orders.all`). */
export type OrderFilters = Omit<CursorWalkQuery<'getOrders'>, 'cursor'>;

/** An event of the feed: an order event or a task event, told apart by `type`. */
export type Event = components['schemas']['Event'];
/** An event's type. */
export type EventType = Event['type'];
/**
 * The feed's filters (`type`, `orderId`, `customerId`), `size` (the page size of the walk), `cursor` (where to
 * resume: a cursor `onCursor` was told earlier) and `follow`: keep polling at the end instead of stopping.
 */
export type EventFeedQuery = CursorWalkQuery<'getEvents'>;

/**
 * The client: the path-level calls (`client.POST('/api/v1/orders', { body })`, answering `{ data }` or
 * `{ error }`), and a method for every operation grouped by resource (`client.orders.create(body)`, resolving
 * with the body and throwing on failure), with `all…` walks over every list and the task helpers.
 */
export interface OrderServiceClient extends Resources {
  GET: CallMethod<'get'>;
  POST: CallMethod<'post'>;
  PUT: CallMethod<'put'>;
  PATCH: CallMethod<'patch'>;
  DELETE: CallMethod<'delete'>;
  tasks: Resources['tasks'] & TaskWaits['tasks'];
  reports: Resources['reports'] & TaskWaits['reports'];
  customers: Resources['customers'] & TaskWaits['customers'];
}

/**
 * A client of the Order Service. Every call goes through openapi-fetch, typed by the service's document; the
 * client also
 * - sends the token (`Authorization: Bearer …`) and `Accept-Language`,
 * - gives every call that takes an `Idempotency-Key` a new one unless the call names its own,
 * - sends a JSON body as the media type its operation takes (a merge patch as `application/merge-patch+json`),
 * - retries what is safe to retry (see `RetryOptions`) with the same key, and limits each attempt in time.
 * A path-level call answers `{ data, response }` or `{ error, response }` with `error` a `ProblemError`; a
 * resource method resolves with the body and throws the `ProblemError`. Both reject with `AbortError`,
 * `TimeoutError` or `NetworkError` when no answer came, and `UnexpectedResponseError` when the answer is not
 * the service's.
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

  const send: Send = async (method, path, init) =>
    callResult(await client.request(method, path as never, init as never));
  const method =
    <Method extends OperationCall['method']>(name: Method): CallMethod<Method> =>
    (path, ...init) =>
      send(name, path, (init[0] ?? {}) as SendInit) as never;
  const resources = resourceMethods(send);
  const waits = taskWaits(resources, send);
  return {
    ...resources,
    GET: method('get'),
    POST: method('post'),
    PUT: method('put'),
    PATCH: method('patch'),
    DELETE: method('delete'),
    tasks: { ...resources.tasks, ...waits.tasks },
    reports: { ...resources.reports, ...waits.reports },
    customers: { ...resources.customers, ...waits.customers },
  };
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
function callResult(result: { data?: unknown; error?: unknown; response: Response }): {
  data?: unknown;
  error?: ProblemError<string>;
  response: Response;
} {
  const { response } = result;
  if (response.ok) return { data: result.data, response };
  const problemType = (response.headers.get('Content-Type') ?? '').startsWith('application/problem+json');
  if (!problemType || !isProblem(result.error)) throw new UnexpectedResponseError(response, result.error);
  return { error: new ProblemError(result.error), response };
}

/**
 * `If-Match` for a change that must apply only to the version read before: pass the read, either a path-level
 * call's result (`header: { ...ifMatch(read) }`) or the body a resource method resolved with
 * (`{ headers: ifMatch(order) }`); the change is then 409 `CONCURRENT_MODIFICATION` if someone else's came first.
 */
export function ifMatch(read: { response: Response } | object): { 'If-Match': string } {
  const response = responseOf(read) ?? ('response' in read ? read.response : undefined);
  if (!(response instanceof Response))
    throw new Error("ifMatch takes a read: a call's result or a body a method resolved with");
  const etag = response.headers.get('ETag');
  if (!etag) throw new Error(`the answer of ${response.url || 'the read'} has no ETag`);
  return { 'If-Match': etag };
}
