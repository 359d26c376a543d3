import { builtinModules } from 'node:module';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

/** What a file loads when it runs, followed through its dependencies. */
export interface RuntimeImports {
  /** Every file reached, relative to `root`. */
  files: string[];
  /** Imports of Node's own modules (`node:crypto`, `fs`, …), which a browser does not have. */
  nodeModules: Array<{ from: string; specifier: string }>;
  /** Imports that lead to no file. */
  unresolved: Array<{ from: string; specifier: string }>;
}

/** Conditions of a package's `exports` a browser bundler picks, in its order of preference. */
const BROWSER_CONDITIONS = ['browser', 'import', 'module', 'default'];
const NODE_MODULES = new Set(builtinModules);

/**
 * The import graph of `entry` at run time, resolved the way a browser bundler resolves it: relative paths as
 * written (plus `.js` or `/index.js` for CommonJS requires), packages from `node_modules` by their `exports`
 * (`browser`, `import`, `default`) or else `browser`, `module`, `main`. Imports, re-exports, literal dynamic
 * imports and `require()` calls count; type-only imports are gone from compiled JavaScript already.
 */
export function runtimeImports(entry: string, root: string): RuntimeImports {
  const result: RuntimeImports = { files: [], nodeModules: [], unresolved: [] };
  const pending = [path.resolve(entry)];
  const seen = new Set(pending);
  while (pending.length > 0) {
    const file = pending.shift() as string;
    const from = path.relative(root, file);
    result.files.push(from);
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    for (const { fileName: specifier } of importedFiles) {
      if (specifier.startsWith('node:') || NODE_MODULES.has(specifier.split('/')[0])) {
        result.nodeModules.push({ from, specifier });
        continue;
      }
      const target = resolveImport(specifier, path.dirname(file));
      if (!target) result.unresolved.push({ from, specifier });
      else if (!seen.has(target)) {
        seen.add(target);
        pending.push(target);
      }
    }
  }
  return result;
}

function resolveImport(specifier: string, directory: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/')) {
    return existingFile(path.resolve(directory, specifier));
  }
  const [scopeOrName, ...rest] = specifier.split('/');
  const name = scopeOrName.startsWith('@') ? `${scopeOrName}/${rest.shift() ?? ''}` : scopeOrName;
  const subpath = rest.length > 0 ? `./${rest.join('/')}` : '.';
  for (let dir = directory; ; dir = path.dirname(dir)) {
    const packageDirectory = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(packageDirectory, 'package.json'))) {
      return packageEntry(packageDirectory, subpath);
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

function packageEntry(packageDirectory: string, subpath: string): string | undefined {
  const manifest = JSON.parse(fs.readFileSync(path.join(packageDirectory, 'package.json'), 'utf8')) as {
    exports?: unknown;
    browser?: unknown;
    module?: string;
    main?: string;
  };
  if (manifest.exports !== undefined) {
    const exported =
      typeof manifest.exports === 'object' && manifest.exports !== null && subpath in manifest.exports
        ? (manifest.exports as Record<string, unknown>)[subpath]
        : subpath === '.'
          ? manifest.exports
          : undefined;
    const target = conditionalTarget(exported);
    return target ? existingFile(path.join(packageDirectory, target)) : undefined;
  }
  if (subpath !== '.') return existingFile(path.join(packageDirectory, subpath));
  const main = typeof manifest.browser === 'string' ? manifest.browser : (manifest.module ?? manifest.main);
  return existingFile(path.join(packageDirectory, main ?? 'index.js'));
}

function conditionalTarget(target: unknown): string | undefined {
  if (typeof target === 'string') return target;
  if (typeof target !== 'object' || target === null) return undefined;
  const conditions = target as Record<string, unknown>;
  for (const condition of BROWSER_CONDITIONS) {
    if (condition in conditions) return conditionalTarget(conditions[condition]);
  }
  return undefined;
}

function existingFile(candidate: string): string | undefined {
  for (const file of [candidate, `${candidate}.js`, path.join(candidate, 'index.js')]) {
    if (fs.existsSync(file) && fs.statSync(file).isFile()) return file;
  }
  return undefined;
}
