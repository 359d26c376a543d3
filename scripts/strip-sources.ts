import { spawnSync } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * `node dist/scripts/strip-sources.js [root]`: removes the comments and the layout whitespace from the
 * JavaScript files of the production dependencies under `root` (those `npm ls --omit=dev` names), in place.
 * The image's build runs it before `npm prune --omit=dev`; CI runs it before its Node 24 stage, so that the
 * suite and the smoke test run on what the image ships.
 *
 * Why: V8 keeps the source text of every loaded module in the heap (functions are compiled lazily, from the
 * source), so the JSDoc and indentation of ~2,500 loaded dependency files cost the process ~9 MB of RSS at
 * idle (docs/benchmarks.md, idle RSS on Node 24). Only the layout changes: the code is parsed and printed
 * again with no compression and no renaming, licence and copyright comments stay, and a file that does not
 * parse, or would not get smaller, is left as it is. The service's own `dist/` is not touched, so its stack
 * traces keep their lines; a frame inside a dependency points at line 1 and a column (the dependencies'
 * source maps, which production does not load, no longer match).
 */

interface MinifyOutput {
  code?: string;
  error?: Error;
}
interface UglifyJs {
  minify(
    code: string,
    options: {
      module: false;
      compress: false;
      mangle: false;
      parse: { bare_returns: boolean; shebang: boolean };
      output: { comments: RegExp; beautify: false; shebang: boolean };
    },
  ): MinifyOutput;
}

// Licence, copyright and "keep this" comments (`/*! … */`, `@license`, `@preserve`, `Copyright …`, SPDX
// identifiers) stay with the code they cover: licences such as Apache-2.0 ask that notices travel with the source.
const KEPT_COMMENTS = /^!|@license|@preserve|copyright|SPDX-License-Identifier/i;

/** The text without comments and layout, or undefined when it should stay as it is. */
export function strippedSource(text: string, uglify: UglifyJs = loadUglify()): string | undefined {
  const result = uglify.minify(text, {
    // Not an ES module: a CommonJS file is parsed as written (sloppy mode included), not as strict code.
    module: false,
    compress: false,
    mangle: false,
    // CommonJS allows `return` at the top level of a module.
    parse: { bare_returns: true, shebang: true },
    output: { comments: KEPT_COMMENTS, beautify: false, shebang: true },
  });
  if (result.error !== undefined || result.code === undefined) return undefined;
  return result.code.length < text.length ? result.code : undefined;
}

/** The directories of the production dependencies, as npm resolves them (nested copies included). */
export function productionPackageDirs(root: string): string[] {
  // npm ls exits 1 on a tree it finds odd (an extraneous package, say) but still lists it; only no listing at
  // all is a failure.
  const listing = spawnSync('npm', ['ls', '--omit=dev', '--parseable', '--all'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (listing.error !== undefined || listing.stdout.trim() === '') {
    throw new Error(
      `npm ls --omit=dev listed nothing in ${root}: ${listing.error?.message ?? listing.stderr}`,
    );
  }
  if (listing.status !== 0) {
    console.warn(
      `strip-sources: npm ls exited ${listing.status}; using its listing:\n${listing.stderr.trim()}`,
    );
  }
  const rootDir = path.resolve(root);
  return listing.stdout
    .split('\n')
    .map((line) => line.trim())
    .filter(
      (dir) =>
        dir !== '' && path.resolve(dir) !== rootDir && dir.includes(`${path.sep}node_modules${path.sep}`),
    );
}

export interface StripReport {
  files: number;
  stripped: number;
  kept: number;
  bytesBefore: number;
  bytesAfter: number;
}

/** Strips every `.js` and `.cjs` file of one package, not descending into its own `node_modules`. */
export function stripPackage(dir: string, report: StripReport, uglify: UglifyJs = loadUglify()): void {
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules') continue; // nested packages are listed (and stripped) on their own
    const file = path.join(dir, entry);
    const stat = lstatSync(file);
    if (stat.isSymbolicLink()) continue;
    if (stat.isDirectory()) {
      stripPackage(file, report, uglify);
    } else if (stat.isFile() && /\.c?js$/.test(entry)) {
      const text = readFileSync(file, 'utf8');
      const stripped = strippedSource(text, uglify);
      const bytes = Buffer.byteLength(text);
      report.files += 1;
      report.bytesBefore += bytes;
      if (stripped === undefined) {
        report.kept += 1;
        report.bytesAfter += bytes;
      } else {
        writeFileSync(file, stripped);
        report.stripped += 1;
        report.bytesAfter += Buffer.byteLength(stripped);
      }
    }
  }
}

export function stripProductionDependencies(root: string): StripReport {
  const report: StripReport = { files: 0, stripped: 0, kept: 0, bytesBefore: 0, bytesAfter: 0 };
  const uglify = loadUglify();
  for (const dir of productionPackageDirs(root)) stripPackage(dir, report, uglify);
  return report;
}

function loadUglify(): UglifyJs {
  // uglify-js ships no type declarations; the one function used is typed above.
  return createRequire(__filename)('uglify-js') as UglifyJs;
}

if (require.main === module) {
  const root = process.argv[2] ?? process.cwd();
  const report = stripProductionDependencies(root);
  const mb = (bytes: number): string => (bytes / 1048576).toFixed(1);
  console.log(
    `strip-sources: ${report.stripped} of ${report.files} files stripped (${report.kept} kept as they were), ` +
      `${mb(report.bytesBefore)} MB -> ${mb(report.bytesAfter)} MB`,
  );
}
