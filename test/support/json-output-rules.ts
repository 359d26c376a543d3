/**
 * Where a body that reaches the client without the JSON output rules (an order rendered by PostgreSQL)
 * breaks them: nulls, empty texts, Dates, objects that are not plain. Empty when it breaks none.
 */
export function outputFormViolations(body: unknown, at = '$'): string[] {
  if (body === null) return [`${at} is null`];
  if (body === '') return [`${at} is ""`];
  if (body instanceof Date) return [`${at} is a Date`];
  if (typeof body !== 'object') return [];
  if (Array.isArray(body)) return body.flatMap((element, i) => outputFormViolations(element, `${at}[${i}]`));
  const prototype = Object.getPrototypeOf(body) as unknown;
  const violations = prototype === Object.prototype ? [] : [`${at} is not a plain object`];
  for (const [name, value] of Object.entries(body)) {
    if (value !== undefined) violations.push(...outputFormViolations(value, `${at}.${name}`));
  }
  return violations;
}
