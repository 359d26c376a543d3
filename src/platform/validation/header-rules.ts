import type { ViolationInput } from '../problem/app-exception';

/** What a handler expects of one request header; validated with the rest of the request's input. */
export interface HeaderRule {
  /** As clients spell it, e.g. `Idempotency-Key`; it is also the violation's field. */
  name: string;
  /** Absent (or blank) is a REQUIRED violation. */
  required?: boolean;
  /** Present is an INVALID_VALUE violation: the handler cannot honour the header. */
  refused?: boolean;
  /** The value's format when present. */
  format?: 'uuid';
}

export const HEADER_RULES = 'validation:header-rules';

const FORMATS: Record<NonNullable<HeaderRule['format']>, RegExp> = {
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
};

/** Declares header rules of a handler, adding to those other decorators declared (`@Idempotent()`…). */
export const HeaderRules =
  (...rules: HeaderRule[]): MethodDecorator =>
  (_target, _key, descriptor) => {
    const handler = descriptor.value as object;
    const declared = (Reflect.getMetadata(HEADER_RULES, handler) as HeaderRule[] | undefined) ?? [];
    Reflect.defineMetadata(HEADER_RULES, [...declared, ...rules], handler);
    return descriptor;
  };

/** The header's value as one string: Node joins repeated headers with ", " (two values are no uuid). */
export function headerValue(
  headers: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  const value = headers[name.toLowerCase()];
  const joined = Array.isArray(value) ? value.join(', ') : value;
  return joined === undefined || joined.trim() === '' ? undefined : joined.trim();
}

export function headerViolations(
  headers: Record<string, string | string[] | undefined>,
  rules: readonly HeaderRule[],
): ViolationInput[] {
  return rules.flatMap((rule): ViolationInput[] => {
    const value = headerValue(headers, rule.name);
    if (value === undefined) return rule.required ? [{ field: rule.name, code: 'REQUIRED' }] : [];
    if (rule.refused) return [{ field: rule.name, code: 'INVALID_VALUE' }];
    if (rule.format && !FORMATS[rule.format].test(value)) {
      return [{ field: rule.name, code: 'INVALID_FORMAT', args: { format: rule.format } }];
    }
    return [];
  });
}
