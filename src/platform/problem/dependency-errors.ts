/**
 * Whether an error says a dependency (PostgreSQL, Redis) is unreachable or overloaded, rather than that
 * the request or the code is wrong: the answer is then 503 SERVICE_UNAVAILABLE with Retry-After, and the
 * client may retry, instead of a 500.
 */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * SQLSTATEs of an unavailable database: class 08 (connection exception), 53300 (too many connections),
 * 57014 (statement cancelled: the statement timeout), 57P01–57P03 (shutdown, crash, not yet accepting).
 */
function unavailableSqlState(code: string): boolean {
  return code.startsWith('08') || ['53300', '57014', '57P01', '57P02', '57P03'].includes(code);
}

/** Messages of the drivers for the same situations, which carry no code. */
const UNAVAILABLE_MESSAGES = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Stream isn't writeable/i,
  /Reached the max retries per request/i,
  /Connection is closed/i,
  /Command timed out/i,
];

export function isDependencyUnavailable(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 3; depth += 1) {
    const { code, message, driverError } = current as {
      code?: unknown;
      message?: unknown;
      driverError?: unknown;
    };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || unavailableSqlState(code))) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message)))
      return true;
    current = driverError;
  }
  return false;
}

/** Seconds a client should wait before retrying a request a dependency outage refused. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = '5';
