/**
 * Why a call got no answer: these are what a call rejects with besides `ProblemError` (the service's answer) and
 * `UnexpectedResponseError` (an answer that is not the service's). Each is a class of its own, so
 * `error instanceof TimeoutError` works, and each error's `name` is its class's.
 */

/** The attempts ran out of time: the last one took longer than `timeoutMs`. */
export class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/** The caller's `signal` aborted the call (or the walk over a list); `cause` is the signal's reason. */
export class AbortError extends Error {
  override readonly name = 'AbortError';
}

/** No answer came: the connection failed or dropped on the last attempt; `cause` is fetch's error. */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
}

/**
 * What a call that got no answer rejects with: the caller's abort as an `AbortError`, fetch's timeout as a
 * `TimeoutError`, fetch's own failure (a `TypeError`) as a `NetworkError`; anything else as it is (a token
 * function's own error, say).
 */
export function callFailure(error: unknown, signal: AbortSignal | undefined): unknown {
  if (error instanceof AbortError || error instanceof TimeoutError || error instanceof NetworkError)
    return error;
  if (signal?.aborted) return new AbortError('the call was aborted', { cause: signal.reason });
  // By name, not class: fetch's errors may come from another realm (a worker, a test sandbox).
  const { name, message } = (typeof error === 'object' && error !== null ? error : {}) as Partial<Error>;
  if (name === 'TimeoutError') return new TimeoutError('the call timed out', { cause: error });
  if (name === 'TypeError') return new NetworkError(`no answer: ${message ?? ''}`, { cause: error });
  return error;
}

/** Throws an `AbortError` when `signal` has aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortError('the call was aborted', { cause: signal.reason });
}
