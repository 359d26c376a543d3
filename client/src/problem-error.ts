import type { components } from './generated/openapi.js';

/** Every code the service can answer. An operation's own answers are a subset: see `ProblemError`. */
export type ErrorCode = components['schemas']['ErrorCode'];
/** One invalid field of a `VALIDATION_ERROR`. */
export type Violation = components['schemas']['Violation'];
/** An RFC 9457 Problem Details body as the service sends it. */
export type Problem = components['schemas']['Problem'];

/**
 * An answer of the service that is a Problem Details document (`application/problem+json`): every error the
 * service gives. `Code` is the union of the codes the called operation declares, so a `switch` on `code`
 * can be checked for exhaustiveness; a newer service may still add a code (adding one is a compatible change),
 * so keep a `default` branch for the rest.
 */
export class ProblemError<Code extends string = ErrorCode> extends Error {
  override readonly name = 'ProblemError';
  /** The HTTP status of the answer. */
  readonly status: number;
  /** What went wrong, for code to branch on. */
  readonly code: Code;
  /** What went wrong, for people, in the language the call asked for (`Accept-Language`). */
  readonly detail: string;
  /** Every invalid field of a `VALIDATION_ERROR`; empty for other codes. */
  readonly violations: readonly Violation[];
  /** The answer's `traceparent`: quote it when you report the error. */
  readonly traceId: string | undefined;
  /** The whole body, with its other members (`type`, `title`, `instance`, `failedItems`). */
  readonly problem: Problem;

  constructor(problem: Problem & { code: Code }) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
    this.status = problem.status;
    this.code = problem.code;
    this.detail = problem.detail;
    this.violations = problem.violations ?? [];
    this.traceId = problem.traceId;
    this.problem = problem;
  }
}

/**
 * A failed answer that is not a Problem Details document, so not the service's own: a proxy's or load
 * balancer's error page, or a status the service never sends unasked (a 304 to an `If-None-Match`).
 */
export class UnexpectedResponseError extends Error {
  override readonly name = 'UnexpectedResponseError';
  readonly status: number;

  constructor(
    /** The answer; its body has been read (`body` holds it). */
    readonly response: Response,
    /** The body as text, or parsed when it was JSON. */
    readonly body: unknown,
  ) {
    super(`${response.status} ${response.statusText || 'error'} from ${response.url || 'the service'}`);
    this.status = response.status;
  }
}

/** A body that is a Problem Details document of the service (status and code are what the client reads). */
export function isProblem(body: unknown): body is Problem {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as Problem).status === 'number' &&
    typeof (body as Problem).code === 'string'
  );
}
