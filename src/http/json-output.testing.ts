/**
 * For unit tests of views that build their bodies in output form (`inOutputForm`): where a body breaks the
 * JSON output rules that `toJsonOutput` would otherwise have applied. Empty when it breaks none.
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
    // `undefined` is how an output-form body leaves a field out (JSON.stringify skips it).
    if (value !== undefined) violations.push(...outputFormViolations(value, `${at}.${name}`));
  }
  return violations;
}
