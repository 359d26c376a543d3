import { randomUUID } from 'node:crypto';
import { problemType, STATUS_TITLES } from './error-codes';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface Violation {
  field: string;
  message: string;
  code: string;
}

/** RFC 9457 body as the contract fixes it (Problem Details). */
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
