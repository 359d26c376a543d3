/**
 * The outcome of one attempt of one delivery, as the delivery record keeps it: a success, or the error
 * (`lastError`) with what is known of it. Only a 2xx whose status line and headers arrived in time succeeds.
 */
export type DeliveryError = 'HTTP_STATUS' | 'TIMEOUT' | 'CONNECTION_FAILED' | 'URL_NOT_ALLOWED';

export type AttemptOutcome =
  | { readonly result: 'SUCCEEDED'; readonly status: number }
  /** Any other status (3xx included: redirects are not followed); 410 Gone disables the endpoint. */
  | { readonly result: 'HTTP_STATUS'; readonly status: number; readonly retryAfterSeconds?: number }
  /** No status line and headers within the time limit (connecting and sending included). */
  | { readonly result: 'TIMEOUT' }
  /** The name did not resolve, the connection or TLS failed, or the answer was not HTTP. */
  | { readonly result: 'CONNECTION_FAILED'; readonly detail: string }
  /**
   * The destination is refused by the destination policy: never retried. `host`: the URL's host, when the
   * URL was well formed; `addresses`: what it resolved to (the literal address itself), when it was judged.
   */
  | {
      readonly result: 'URL_NOT_ALLOWED';
      readonly detail: string;
      readonly host?: string;
      readonly addresses?: readonly string[];
    };

/** The receiver is gone for good (the endpoint is disabled with `GONE`). */
export const GONE_STATUS = 410;

/** Statuses whose `Retry-After` a retry honours. */
const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** The outcome of an answer that came with `status` and `retryAfter` (the header's value, if any). */
export function outcomeOfAnswer(status: number, retryAfter: string | undefined, now: number): AttemptOutcome {
  if (status >= 200 && status <= 299) return { result: 'SUCCEEDED', status };
  const retryAfterSeconds = RETRY_AFTER_STATUSES.has(status) ? parseRetryAfter(retryAfter, now) : undefined;
  return retryAfterSeconds === undefined
    ? { result: 'HTTP_STATUS', status }
    : { result: 'HTTP_STATUS', status, retryAfterSeconds };
}

/** At most ten digits of delta-seconds (beyond three centuries is not a wait, it is a typo or a trick). */
const DELTA_SECONDS = /^\d{1,10}$/;
/** The three HTTP-date forms a recipient must accept (RFC 9110 §5.6.7). */
const IMF_FIXDATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const RFC_850_DATE = /^[A-Z][a-z]+, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
const ASCTIME_DATE = /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/**
 * `Retry-After` in whole seconds from `now` (Unix milliseconds): delta-seconds, or an HTTP-date (a date in
 * the past is 0). Undefined when absent or malformed.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (DELTA_SECONDS.test(text)) return Number(text);
  let date: number;
  if (IMF_FIXDATE.test(text) || RFC_850_DATE.test(text)) date = Date.parse(text);
  else if (ASCTIME_DATE.test(text)) date = Date.parse(`${text} GMT`);
  else return undefined;
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}
