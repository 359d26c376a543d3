import type { LightMyRequestResponse } from 'fastify';

/** The media type of every error response (RFC 9457), with or without parameters. */
export const PROBLEM_JSON = /^application\/problem\+json(;|$)/;

/** A W3C `traceparent` header value: version 00, trace id, span id, flags. */
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/;

/** A violation of one field in a 400 VALIDATION_ERROR. */
export interface Violation {
  field: string;
  code: string;
  message: string;
}

/** A Problem Details body as the service sends it; extension members (`checks`, `failedItems`…) stay open. */
export interface Problem {
  type: string;
  status: number;
  title: string;
  detail: string;
  code: string;
  instance: string;
  traceId?: string;
  violations?: Violation[];
  [member: string]: unknown;
}

/** The `type` URN the service gives the problem `code` (`VALIDATION_ERROR` → `…:validation-error`). */
export function problemType(code: string): string {
  return `urn:problem:order-service:${code.toLowerCase().replace(/_/g, '-')}`;
}

/**
 * A Problem Details response of `status` with `code`, served as application/problem+json; `members` are
 * further members the body must have (as in `toMatchObject`). Returns the body.
 */
export function expectProblem(
  res: LightMyRequestResponse,
  status: number,
  code: string,
  members: Partial<Problem> = {},
): Problem {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(PROBLEM_JSON);
  const body = res.json<Problem>();
  expect(body).toMatchObject({ ...members, code });
  return body;
}

/**
 * Like `expectProblem`, and the body carries every member a problem has: its `type` URN, `status`, a
 * `title` and `detail`, an `instance` URN and the `traceId` of the response's (well-formed) traceparent.
 */
export function expectProblemEnvelope(
  res: LightMyRequestResponse,
  status: number,
  code: string,
  members: Partial<Problem> = {},
): Problem {
  expect(res.headers.traceparent).toMatch(TRACEPARENT);
  return expectProblem(res, status, code, {
    type: problemType(code),
    status,
    title: expect.any(String),
    detail: expect.any(String),
    instance: expect.stringMatching(/^urn:uuid:[0-9a-f-]{36}$/),
    traceId: String(res.headers.traceparent),
    ...members,
  });
}

/** The violations of a problem response, in the order the service lists them. */
export function violationsOf(res: LightMyRequestResponse): Violation[] {
  return res.json<Problem>().violations ?? [];
}

/** Orders violations (or expected ones) by field name, for comparing lists whose order is not the point. */
export function byField(a: { field: string }, b: { field: string }): number {
  return a.field.localeCompare(b.field);
}

/** The violations of a problem response, sorted by field. */
export function violationsByField(res: LightMyRequestResponse): Violation[] {
  return [...violationsOf(res)].sort(byField);
}

/** The violated field names of a problem response, sorted. */
export function violatedFields(res: LightMyRequestResponse): string[] {
  return violationsOf(res)
    .map((v) => v.field)
    .sort();
}

/** Each violation's field and code, without the (localized) message. */
export function fieldsAndCodes(violations: Violation[]): Array<{ field: string; code: string }> {
  return violations.map(({ field, code }) => ({ field, code }));
}
