// The memory settings a container of deploy/k8s/base runs with (NODE_OPTIONS for V8's heap, MALLOC_ARENA_MAX
// for glibc's allocator), so that a benchmark starts the service as production does: the RSS goals are about
// that process, not about Node's defaults.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

const MEMORY_SETTINGS = ['NODE_OPTIONS', 'MALLOC_ARENA_MAX'];

/**
 * The memory settings of the first container of the Deployment in `file` (relative to `root`);
 * BENCH_NODE_OPTIONS replaces its NODE_OPTIONS, to compare settings.
 */
export function deployedMemorySettings(root, file) {
  const settings = {};
  for (const document of parseAllDocuments(readFileSync(path.join(root, file), 'utf8'))) {
    const manifest = document.toJS();
    if (manifest?.kind !== 'Deployment') continue;
    const [container] = manifest.spec.template.spec.containers;
    for (const variable of container.env ?? []) {
      if (MEMORY_SETTINGS.includes(variable.name)) settings[variable.name] = variable.value;
    }
    break;
  }
  if (process.env.BENCH_NODE_OPTIONS !== undefined) settings.NODE_OPTIONS = process.env.BENCH_NODE_OPTIONS;
  return settings;
}

/**
 * BENCH_BEFORE_NODE_OPTIONS and BENCH_BEFORE_MALLOC_ARENA_MAX (`unset`: glibc's default): other memory
 * settings for the `before` server, so that two settings of one build (BENCH_BEFORE_DIST=dist) are compared
 * in the same interleaved rounds.
 */
export function beforeMemorySettings() {
  const settings = {};
  const options = process.env.BENCH_BEFORE_NODE_OPTIONS;
  if (options !== undefined) settings.NODE_OPTIONS = options;
  const arenas = process.env.BENCH_BEFORE_MALLOC_ARENA_MAX;
  // An empty value reaches glibc as unset.
  if (arenas !== undefined) settings.MALLOC_ARENA_MAX = arenas === 'unset' ? '' : arenas;
  return settings;
}
