import type { OpenAPIObject, OperationObject, ParameterObject, RequestBodyObject } from '@nestjs/swagger';
import { HTTP_METHODS } from '../src/bootstrap/openapi/endpoint-conventions';

/**
 * The client's resource methods, from the document (client/src/generated/resources.ts): one method for every
 * operation, grouped by the operation's tag (`Orders` → `client.orders`), named by its operationId without the
 * tag's noun (`confirmOrder` → `confirm`, `getOrderItems` → `listItems`); a `get` that answers pages is a
 * `list`, and every `list…` has an `all…` that walks its pages. The method takes the path parameters in path
 * order, then the body or the query (an operation with both would need a new shape: the generator refuses it),
 * then `options`. The module declares the methods' types (with each operation's summary) and the table the
 * client builds them from at run time.
 */

interface Method {
  name: string;
  operationId: string;
  httpMethod: (typeof HTTP_METHODS)[number];
  path: string;
  operation: OperationObject;
  pathParameters: string[];
  input?: { kind: 'body' | 'query'; required: boolean };
  file: boolean;
  paging?: 'cursor' | 'offset';
  /** A list that pages either way (`cursor` or `page`): typed by which one the query names. */
  eitherPaging: boolean;
}

export function resourcesModule(document: OpenAPIObject): string {
  const resources = new Map<string, Method[]>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const httpMethod of HTTP_METHODS) {
      const operation: OperationObject | undefined = item[httpMethod];
      if (!operation) continue;
      const method = methodOf(path, httpMethod, operation);
      const resource = lowerFirst(tagOf(operation));
      const methods = resources.get(resource) ?? [];
      const taken = methods.find((other) => other.name === method.name || walkName(other) === method.name);
      if (taken) {
        throw new Error(
          `${method.operationId} and ${taken.operationId} would both be client.${resource}.${method.name}`,
        );
      }
      resources.set(resource, [...methods, method]);
    }
  }
  const names = [...resources.keys()].sort();
  const interfaces = names.map((resource) => resourceInterface(resource, resources.get(resource)!));
  const tables = names.map((resource) => resourceTable(resource, resources.get(resource)!));
  return (
    "import type { Answer, Body, CallOptions, CursorPageAnswer, CursorWalkQuery, Item, ListWalk, OffsetPageAnswer, OffsetWalkQuery, OperationCall, PathParameter, Query, WalkOptions } from '../resource-types.js';\n\n" +
    "/**\n * A method for every operation of the document, grouped by resource (the operation's tag). Each resolves\n" +
    " * with the answer's body and rejects with `ProblemError` (the service's answer), `TimeoutError`, `AbortError`,\n" +
    ' * `NetworkError` or `UnexpectedResponseError`.\n */\n' +
    `export interface Resources {\n${interfaces.join('')}}\n\n` +
    '/** How the client calls each method of `Resources`, and how each `all…` walks its list. */\n' +
    'export const RESOURCE_OPERATIONS: Record<string, Record<string, OperationCall | ListWalk>> = {\n' +
    `${tables.join('')}};\n`
  );
}

function tagOf(operation: OperationObject): string {
  const [tag] = operation.tags ?? [];
  if (!tag) throw new Error(`${operation.operationId} has no tag: the client groups operations by tag`);
  return tag;
}

function methodOf(path: string, httpMethod: Method['httpMethod'], operation: OperationObject): Method {
  const operationId = operation.operationId;
  if (!operationId) throw new Error(`${httpMethod.toUpperCase()} ${path} has no operationId`);
  const parameters = (operation.parameters ?? []) as ParameterObject[];
  const query = parameters.filter((parameter) => parameter.in === 'query');
  const requestBody = operation.requestBody as RequestBodyObject | undefined;
  if (requestBody && query.length > 0)
    throw new Error(`${operationId} takes both a body and a query: the client's methods take one of them`);
  const queryNames = new Set(query.map((parameter) => parameter.name));
  const paging =
    httpMethod === 'get'
      ? queryNames.has('cursor')
        ? 'cursor'
        : queryNames.has('page')
          ? 'offset'
          : undefined
      : undefined;
  let name = lowerFirst(withoutNoun(operationId, tagOf(operation)));
  if (paging && name.startsWith('get')) name = `list${name.slice('get'.length)}`;
  if (!/^[a-z][A-Za-z0-9]*$/.test(name)) throw new Error(`${operationId} gives no method name (${name})`);
  const success = Object.entries(operation.responses).find(([status]) => /^2/.test(status))?.[1] as
    { content?: Record<string, unknown> } | undefined;
  const answerTypes = Object.keys(success?.content ?? {});
  return {
    name,
    operationId,
    httpMethod,
    path,
    operation,
    pathParameters: [...path.matchAll(/\{(\w+)\}/g)].map(([, parameter]) => parameter),
    input: requestBody
      ? { kind: 'body', required: requestBody.required === true }
      : query.length > 0
        ? { kind: 'query', required: query.some((parameter) => parameter.required) }
        : undefined,
    file: answerTypes.length > 0 && !answerTypes.some((type) => /^application\/(.+\+)?json$/.test(type)),
    paging,
    eitherPaging: queryNames.has('cursor') && queryNames.has('page'),
  };
}

/** The operationId without the tag's noun: plural, singular, or its first word (`rotateWebhookSecret`). */
function withoutNoun(operationId: string, tag: string): string {
  const singular = /ies$/.test(tag)
    ? tag.replace(/ies$/, 'y')
    : /sses$/.test(tag)
      ? tag.replace(/es$/, '')
      : tag.replace(/s$/, '');
  const firstWord = /^[A-Z][a-z0-9]*/.exec(tag)?.[0] ?? tag;
  for (const noun of [tag, singular, firstWord]) {
    const at = operationId.search(new RegExp(`${noun}(?![a-z])`));
    if (at > 0) return operationId.slice(0, at) + operationId.slice(at + noun.length);
  }
  return operationId;
}

function walkName(method: Method): string | undefined {
  return method.paging ? `all${method.name.slice('list'.length)}` : undefined;
}

function resourceInterface(resource: string, methods: Method[]): string {
  const members = methods.flatMap((method) => {
    const id = JSON.stringify(method.operationId);
    const pathArguments = method.pathParameters.map(
      (parameter) => `${parameter}: PathParameter<${id}, ${JSON.stringify(parameter)}>`,
    );
    const options = `options?: CallOptions<${id}>`;
    const docs = methodDocs(method);
    const call = (input: string | undefined, answer: string) =>
      `${docs}    ${method.name}(${[...pathArguments, ...(input ? [input] : []), options].join(', ')}): Promise<${answer}>;\n`;
    const inputOf = (type: string) =>
      method.input ? `${method.input.kind}${method.input.required ? '' : '?'}: ${type}` : undefined;
    const signatures = method.eitherPaging
      ? [
          call(`query: Query<${id}> & { cursor: string }`, `CursorPageAnswer<${id}>`),
          call(`query?: Omit<Query<${id}>, 'cursor'>`, `OffsetPageAnswer<${id}>`),
        ]
      : [call(inputOf(method.input?.kind === 'body' ? `Body<${id}>` : `Query<${id}>`), `Answer<${id}>`)];
    const walk = walkName(method);
    if (!walk) return signatures;
    const walkQuery = method.paging === 'cursor' ? `CursorWalkQuery<${id}>` : `OffsetWalkQuery<${id}>`;
    return [
      ...signatures,
      `    /** Every item of \`${method.name}\`, page after page (a page is fetched when the loop reaches it). */\n` +
        `    ${walk}(${[...pathArguments, `query?: ${walkQuery}`, 'options?: WalkOptions'].join(', ')}): AsyncGenerator<Item<${id}>, void, undefined>;\n`,
    ];
  });
  return `  ${resource}: {\n${members.join('')}  };\n`;
}

function methodDocs(method: Method): string {
  const lines = [
    ...(method.operation.summary ? [`${method.operation.summary}.`, ''] : []),
    `\`${method.httpMethod.toUpperCase()} ${method.path}\` (${method.operationId})`,
    ...(method.operation.deprecated
      ? [`@deprecated ${method.operation.description ?? 'The operation is going away.'}`]
      : []),
  ];
  return `    /**\n${lines.map((line) => `     *${line ? ` ${line.replace(/\*\//g, '*\\/')}` : ''}\n`).join('')}     */\n`;
}

function resourceTable(resource: string, methods: Method[]): string {
  const entries = methods.flatMap((method) => {
    const call = {
      operationId: method.operationId,
      method: method.httpMethod,
      path: method.path,
      pathParameters: method.pathParameters,
      ...(method.input ? { input: method.input.kind } : {}),
      ...(method.file ? { file: true } : {}),
    };
    const walk = walkName(method);
    return [
      `    ${method.name}: ${JSON.stringify(call)},\n`,
      ...(walk ? [`    ${walk}: ${JSON.stringify({ walks: method.name, paging: method.paging })},\n`] : []),
    ];
  });
  return `  ${resource}: {\n${entries.join('')}  },\n`;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
