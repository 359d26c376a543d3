/**
 * The Spectral function of the rule `operation-id-action-first` (.spectral.yaml): an operationId starts
 * with one of the API's verbs (`options.verbs`), or, for an action endpoint (`POST …/{id}/<action>`), with
 * its own action. Order actions are declared once, in the state table, and routed by `ActionRoute` as such
 * endpoints, so a new action needs no entry in the ruleset. A kebab-case action (`rotate-secret`) is named by
 * its first word.
 */
export default function operationIdNamesItsAction(operationId, options, context) {
  const [, path, method] = context.path;
  const action = method === 'post' ? /\/\{[^/}]+\}\/([a-z]+)(?:-[a-z]+)*$/.exec(path)?.[1] : undefined;
  const verbs = action ? [...options.verbs, action] : options.verbs;
  if (typeof operationId === 'string' && verbs.some((verb) => operationId.startsWith(verb))) return [];
  return [{ message: `operationId ${operationId} does not start with an action` }];
}
