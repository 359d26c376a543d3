import { callFailure } from './call-errors.js';
import { sleep } from './sleep.js';

/** A bearer token, or a function that returns the current one (called before every attempt: refresh there). */
export type TokenSource = string | (() => string | undefined | Promise<string | undefined>);

/** How the client retries a call that failed in a way worth retrying. */
export interface RetryOptions {
  /** Attempts in all, the first included (default 3; 1 turns retries off). */
  attempts?: number;
  /** The wait before the first retry; it doubles for each next one, with random jitter (default 250 ms). */
  baseDelayMs?: number;
  /**
   * The longest wait before a retry (default 20 s). When the service asks for more (`Retry-After`), the
   * client does not retry and the call returns that answer.
   */
  maxDelayMs?: number;
}

export interface AttemptOptions {
  fetch: (request: Request) => Promise<Response>;
  token?: TokenSource;
  /** Each attempt's limit; past it the attempt is aborted with a `TimeoutError`. */
  timeoutMs: number;
  retry: Required<RetryOptions>;
  /** Waits; tests replace it. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** Methods that mean the same done twice (RFC 9110 §9.2.2): a retry can never apply a change twice. */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
/** Answers that say "not now": rate limited, unavailable, or a gateway that could not reach the service. */
const RETRY_STATUSES = new Set([429, 502, 503, 504]);

/**
 * The `fetch` the client's calls go through: each attempt carries the current bearer token and its own
 * timeout; a network failure, a timeout, or an answer in `RETRY_STATUSES` is tried again (same request, same
 * `Idempotency-Key`) when that is safe: an idempotent method, or a request with an `Idempotency-Key`, whose
 * retry the service answers with the first outcome. The wait honours `Retry-After`. A 409
 * `IDEMPOTENCY_KEY_IN_PROGRESS` (the first attempt still running on the service) is waited out the same way.
 * When no answer came, it rejects with `AbortError`, `TimeoutError` or `NetworkError` (see `callFailure`).
 */
export function attemptingFetch(options: AttemptOptions): (request: Request) => Promise<Response> {
  const wait = options.sleep ?? sleep;
  return async (request) => {
    try {
      return await attempting(request, options, wait);
    } catch (error) {
      throw callFailure(error, request.signal);
    }
  };
}

async function attempting(
  request: Request,
  options: AttemptOptions,
  wait: NonNullable<AttemptOptions['sleep']>,
): Promise<Response> {
  const safe = IDEMPOTENT_METHODS.has(request.method) || request.headers.has('Idempotency-Key');
  const attempts = safe ? Math.max(1, options.retry.attempts) : 1;
  for (let attempt = 1; ; attempt++) {
    const last = attempt >= attempts;
    let outcome: Response | Error;
    try {
      outcome = await attemptOnce(request, options);
    } catch (error) {
      // The caller's own abort ends the call; anything else (network, timeout) may be retried.
      if (last || request.signal.aborted) throw error;
      outcome = error instanceof Error ? error : new Error(String(error));
    }
    if (outcome instanceof Response && (last || !(await worthRetrying(outcome)))) return outcome;
    const delay = retryDelay(outcome, attempt, options.retry);
    if (delay === undefined) {
      if (outcome instanceof Response) return outcome;
      throw outcome;
    }
    if (outcome instanceof Response) await outcome.body?.cancel();
    await wait(delay, request.signal);
  }
}

async function attemptOnce(request: Request, options: AttemptOptions): Promise<Response> {
  // A Request's body can be read once: every attempt sends a copy.
  const attempt = request.clone();
  const token = typeof options.token === 'function' ? await options.token() : options.token;
  if (token) attempt.headers.set('Authorization', `Bearer ${token}`);
  const signal = AbortSignal.any([request.signal, AbortSignal.timeout(options.timeoutMs)]);
  return options.fetch(new Request(attempt, { signal }));
}

async function worthRetrying(response: Response): Promise<boolean> {
  if (RETRY_STATUSES.has(response.status)) return true;
  if (response.status !== 409) return false;
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => undefined);
  return (body as { code?: unknown } | undefined)?.code === 'IDEMPOTENCY_KEY_IN_PROGRESS';
}

/**
 * The wait before the next attempt: exponential backoff with jitter (half to all of `base·2^(n-1)`), at
 * least what `Retry-After` asks; undefined when that is more than `maxDelayMs` (then the answer stands).
 */
export function retryDelay(
  outcome: Response | Error,
  attempt: number,
  retry: Required<RetryOptions>,
): number | undefined {
  const backoff = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));
  const jittered = backoff / 2 + (Math.random() * backoff) / 2;
  const asked = outcome instanceof Response ? retryAfterMs(outcome.headers.get('Retry-After')) : undefined;
  if (asked !== undefined && asked > retry.maxDelayMs) return undefined;
  return Math.max(jittered, asked ?? 0);
}

/** `Retry-After` as milliseconds from now: delay-seconds or an HTTP-date (RFC 9110 §10.2.3). */
export function retryAfterMs(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  // Every form of HTTP-date starts with the day's name.
  if (!/^\s*[A-Z][a-z]{2}/.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
