import { currentTrace } from '../tracing/trace-context';

/**
 * The DTOs the request validation guard built, per request, for the validation pipe to hand to the
 * handler instead of building and checking them again. Keyed by the request's trace context (the async
 * context a request's guards, pipes and handler run in), weakly: nothing outlives the request.
 */
const validated = new WeakMap<object, ReadonlyMap<string, unknown>>();

export function rememberValidatedInputs(
  scope: object | undefined,
  values: ReadonlyMap<string, unknown>,
): void {
  if (scope && values.size > 0) validated.set(scope, values);
}

/** `{ found: true, value }` when the guard validated the input `type:data` of the current request. */
export function validatedInput(type: string, data: string | undefined): { found: boolean; value?: unknown } {
  const scope = currentTrace();
  const values = scope ? validated.get(scope) : undefined;
  const key = `${type}:${data ?? ''}`;
  return values?.has(key) ? { found: true, value: values.get(key) } : { found: false };
}
