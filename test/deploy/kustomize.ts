import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse, parseAllDocuments } from 'yaml';

/** A rendered Kubernetes object, as much as the tests read generically. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [field: string]: unknown;
}

interface Kustomization {
  apiVersion?: string;
  kind?: string;
  resources?: string[];
  namespace?: string;
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
  patches?: { target?: { kind?: string; name?: string }; patch?: string; path?: string }[];
}

interface PatchOperation {
  op: string;
  path: string;
  value?: unknown;
}

/**
 * The kustomize features deploy/k8s uses, and no others: `resources` (files and directories), JSON 6902
 * `patches` targeted by kind and name, `namespace`, `images`. A kustomization asking for anything else is
 * refused by name, so this renderer never silently differs from kustomize; where kubectl is installed, a test
 * checks that both render the same objects.
 */
const SUPPORTED = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'images', 'patches']);

export function renderKustomization(dir: string): Manifest[] {
  const file = path.join(dir, 'kustomization.yaml');
  if (!existsSync(file)) throw new Error(`${dir}: no kustomization.yaml`);
  const kustomization = parse(readFileSync(file, 'utf8')) as Kustomization;
  const unknown = Object.keys(kustomization).filter((key) => !SUPPORTED.has(key));
  if (unknown.length > 0) {
    throw new Error(
      `${file}: ${unknown.join(', ')} is not implemented by test/deploy/kustomize.ts ` +
        `(it knows ${[...SUPPORTED].join(', ')}); extend it and its agreement test with kubectl`,
    );
  }
  let resources = (kustomization.resources ?? []).flatMap((entry) => {
    const target = path.resolve(dir, entry);
    return statSync(target).isDirectory() ? renderKustomization(target) : readManifests(target);
  });
  // Kustomize's order of built-in transformers: patches, then the namespace, then images.
  for (const patch of kustomization.patches ?? []) resources = applyPatch(resources, patch, dir);
  const namespace = kustomization.namespace;
  if (namespace) resources = resources.map((r) => ({ ...r, metadata: { ...r.metadata, namespace } }));
  for (const image of kustomization.images ?? []) resources = resources.map((r) => setImage(r, image));
  const ids = new Set<string>();
  for (const resource of resources) {
    const id = resourceId(resource);
    if (ids.has(id)) throw new Error(`${dir}: ${id} is declared twice`);
    ids.add(id);
  }
  return resources;
}

export function readManifests(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((document) => {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0].message}`);
      return document.toJS() as Manifest | null;
    })
    .filter((m): m is Manifest => m !== null);
}

export function resourceId(resource: Manifest): string {
  return `${resource.kind}/${resource.metadata.namespace ?? ''}/${resource.metadata.name}`;
}

function applyPatch(
  resources: Manifest[],
  patch: NonNullable<Kustomization['patches']>[number],
  dir: string,
) {
  const text = patch.patch ?? (patch.path ? readFileSync(path.resolve(dir, patch.path), 'utf8') : undefined);
  if (text === undefined) throw new Error(`${dir}: a patch without patch or path`);
  const operations = parse(text) as unknown;
  if (!Array.isArray(operations)) {
    throw new Error(`${dir}: strategic merge patches are not implemented; write JSON 6902 operations`);
  }
  const target = patch.target ?? {};
  let matched = 0;
  const patched = resources.map((resource) => {
    if (target.kind !== undefined && target.kind !== resource.kind) return resource;
    if (target.name !== undefined && target.name !== resource.metadata.name) return resource;
    matched += 1;
    const copy = structuredClone(resource);
    for (const operation of operations as PatchOperation[]) applyOperation(copy, operation);
    return copy;
  });
  if (matched === 0) throw new Error(`${dir}: a patch matches no resource (${JSON.stringify(target)})`);
  return patched;
}

/** RFC 6902 add, replace, remove and test on a parsed object. */
function applyOperation(document: Manifest, operation: PatchOperation): void {
  const keys = operation.path
    .split('/')
    .slice(1)
    .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
  const last = keys.pop();
  if (last === undefined) throw new Error(`cannot ${operation.op} the whole document`);
  let parent: unknown = document;
  for (const key of keys) {
    parent = (parent as Record<string, unknown>)?.[key];
    if (parent === undefined || parent === null) throw new Error(`${operation.path}: ${key} does not exist`);
  }
  if (Array.isArray(parent)) {
    const list = parent as unknown[];
    const index = last === '-' ? list.length : Number(last);
    const exists = index < list.length;
    if (operation.op === 'add') list.splice(index, 0, operation.value);
    else if (operation.op === 'replace' && exists) list[index] = operation.value;
    else if (operation.op === 'remove' && exists) list.splice(index, 1);
    else if (operation.op === 'test' && isDeepStrictEqual(list[index], operation.value)) return;
    else throw new Error(`${operation.path}: ${operation.op} failed or is not implemented`);
    return;
  }
  const object = parent as Record<string, unknown>;
  const exists = Object.hasOwn(object, last);
  switch (operation.op) {
    case 'add':
      object[last] = operation.value;
      return;
    case 'replace':
      if (!exists) throw new Error(`${operation.path}: replace of a value that does not exist`);
      object[last] = operation.value;
      return;
    case 'remove':
      if (!exists) throw new Error(`${operation.path}: remove of a value that does not exist`);
      delete object[last];
      return;
    case 'test':
      if (!isDeepStrictEqual(object[last], operation.value))
        throw new Error(`${operation.path}: test failed`);
      return;
    default:
      throw new Error(`${operation.path}: op ${operation.op} is not implemented`);
  }
}

interface PodSpecLike {
  containers?: { image?: string }[];
  initContainers?: { image?: string }[];
}

function podSpecOf(resource: Manifest): PodSpecLike | undefined {
  const spec = resource.spec as { template?: { spec?: PodSpecLike } } | undefined;
  return spec?.template?.spec;
}

/** Kustomize's image transformer: the image named `name` (any tag or digest) gets the new name, tag or digest. */
function setImage(resource: Manifest, image: NonNullable<Kustomization['images']>[number]): Manifest {
  const pod = podSpecOf(resource);
  if (!pod) return resource;
  const copy = structuredClone(resource);
  const copyPod = podSpecOf(copy) as PodSpecLike;
  for (const container of [...(copyPod.containers ?? []), ...(copyPod.initContainers ?? [])]) {
    if (!container.image) continue;
    const at = container.image.indexOf('@');
    const colon = container.image.lastIndexOf(':');
    const slash = container.image.lastIndexOf('/');
    const end = at !== -1 ? at : colon > slash ? colon : container.image.length;
    if (container.image.slice(0, end) !== image.name) continue;
    const suffix = image.digest
      ? `@${image.digest}`
      : image.newTag
        ? `:${image.newTag}`
        : container.image.slice(end);
    container.image = `${image.newName ?? image.name}${suffix}`;
  }
  return copy;
}

/** kubectl, when this machine has it (CI machines of this kind may not). */
export function kubectlPath(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, 'kubectl');
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

export function renderWithKubectl(kubectl: string, dir: string): Manifest[] {
  const output = execFileSync(kubectl, ['kustomize', dir], { encoding: 'utf8' });
  return parseAllDocuments(output)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

/** Renders an overlay as the deploy does: with `kubectl kustomize` where present, else with this renderer. */
export function render(dir: string): Manifest[] {
  const kubectl = kubectlPath();
  return kubectl ? renderWithKubectl(kubectl, dir) : renderKustomization(dir);
}
