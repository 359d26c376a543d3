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

/**
 * BENCH_BEFORE_NODE_OPTIONS: other NODE_OPTIONS for the `before` server, so that two settings of one build
 * (BENCH_BEFORE_DIST=dist) are compared in the same interleaved rounds.
 */
export function beforeNodeOptions() {
  const options = process.env.BENCH_BEFORE_NODE_OPTIONS;
  return options === undefined ? {} : { NODE_OPTIONS: options };
}
