import { randomUUID } from 'node:crypto';
import { problemType, STATUS_TITLES } from './error-codes';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/**
 * Bounds of what a problem body can hold, declared in the OpenAPI document and kept by the renderer: a
 * `detail` or violation `message` (the catalogue texts with their arguments stay far below), the number
 * of violations and the length of a violation's `field`. The last two bound what a request can make the
 * service echo: thousands of unknown fields, or one with a megabyte-long name, are not repeated back.
 */
export const MAX_PROBLEM_TEXT_LENGTH = 1000;
export const MAX_VIOLATIONS = 1000;
export const MAX_FIELD_PATH_LENGTH = 300;

export interface Violation {
  field: string;
  message: string;
  code: string;
}

/** The RFC 9457 Problem Details body every error answer carries. */
export interface ProblemBody {
  type: string;
  status: number;
  title: string;
  detail: string;
  instance: string;
  traceId?: string;
  code: string;
  violations?: Violation[];
  [extension: string]: unknown;
}

export function buildProblem(input: {
  status: number;
  code: string;
  detail: string;
  traceId?: string;
  violations?: Violation[];
  extensions?: Record<string, unknown>;
}): ProblemBody {
  const body: ProblemBody = {
    type: problemType(input.code),
    status: input.status,
    title: STATUS_TITLES[input.status] ?? 'Error',
    detail: input.detail,
    instance: `urn:uuid:${randomUUID()}`,
    code: input.code,
  };
  if (input.traceId) body.traceId = input.traceId;
  if (input.violations && input.violations.length > 0) body.violations = input.violations;
  return { ...(input.extensions ?? {}), ...body };
}
