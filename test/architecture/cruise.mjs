/**
 * Cruises `src/` (and `client/src/`, where there is one) of each given directory with a dependency-cruiser
 * config, in ONE process, the way `npm run lint:deps` (`depcruise src client/src --config <config>`) run inside
 * that directory does (same config loader, tsconfig relative to the
 * directory, paths relative to it). dependency-cruiser 17 is ESM-only and its CLI takes ~1.5 s to start, so the
 * CommonJS jest spec (dependency-rules.spec.ts) runs this script once for all planted trees.
 *
 * Usage: node test/architecture/cruise.mjs <config> <dir>...
 * Prints JSON: { rules: string[], results: { [dir]: { modules: string[], violations: [...] } } }
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const [configArgument, ...directoryArguments] = process.argv.slice(2);
if (!configArgument || directoryArguments.length === 0) {
  console.error('usage: node cruise.mjs <config> <dir>...');
  process.exit(2);
}
const configFile = resolve(configArgument);
const directories = directoryArguments.map((directory) => resolve(directory));

const results = {};
let rules = [];
for (const directory of directories) {
  process.chdir(directory);
  const options = await extractDepcruiseOptions(configFile);
  rules = (options.ruleSet.forbidden ?? []).map((rule) => rule.name);
  const tsConfigFile = options.tsConfig?.fileName;
  const tsConfig = tsConfigFile ? extractTSConfig(tsConfigFile) : undefined;
  const roots = ['src', 'client/src'].filter((root) => existsSync(root));
  const { output } = await cruise(roots, { ...options, outputType: 'json' }, {}, { tsConfig });
  const result = typeof output === 'string' ? JSON.parse(output) : output;
  results[directory] = {
    modules: result.modules.map((module) => module.source),
    violations: result.summary.violations.map(({ rule, from, to, type }) => ({
      rule: rule.name,
      from,
      to,
      type,
    })),
  };
}
process.stdout.write(JSON.stringify({ rules: [...new Set(rules)], results }));
