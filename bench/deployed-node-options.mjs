// The NODE_OPTIONS a container of deploy/k8s/base runs with, so that a benchmark starts the service with the
// memory settings production uses (the RSS goals are about that process, not about Node's defaults).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

/** The NODE_OPTIONS value of the first container of the Deployment in `file` (relative to `root`), or ''. */
export function deployedNodeOptions(root, file) {
  for (const document of parseAllDocuments(readFileSync(path.join(root, file), 'utf8'))) {
    const manifest = document.toJS();
    if (manifest?.kind !== 'Deployment') continue;
    const [container] = manifest.spec.template.spec.containers;
    return container.env?.find((variable) => variable.name === 'NODE_OPTIONS')?.value ?? '';
  }
  return '';
}
