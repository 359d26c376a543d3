// The service as the image ships it (Dockerfile): the build, and the dependencies with their JavaScript
// stripped of comments and layout (scripts/strip-sources.ts), which is what the RSS goals are about.
// BENCH_SHIPPED=0 runs the checkout's own tree instead.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The directory to run the service from: a copy of the build and node_modules in a fresh temporary directory
 * (outside the checkout, where none of the project's tools sees it; removed when the benchmark exits),
 * stripped as the image's build strips them, or `root` itself with BENCH_SHIPPED=0. Dev dependencies stay
 * (the image prunes them; the service never loads them). A `before` build (BENCH_BEFORE_DIST) is copied in
 * beside it, so both resolve the same dependencies; `beforeDist` is then its path inside the copy.
 */
export function shippedTree(root) {
  const beforeDist = process.env.BENCH_BEFORE_DIST ? path.resolve(process.env.BENCH_BEFORE_DIST) : undefined;
  if (process.env.BENCH_SHIPPED === '0') return { dir: root, beforeDist };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'order-service-bench-shipped-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  for (const entry of ['dist', 'node_modules', 'package.json', 'package-lock.json']) {
    cpSync(path.join(root, entry), path.join(dir, entry), { recursive: true, verbatimSymlinks: true });
  }
  execFileSync(process.execPath, [path.join(dir, 'dist/scripts/strip-sources.js'), dir], {
    stdio: 'inherit',
  });
  let copiedBefore;
  if (beforeDist) {
    copiedBefore = path.join(dir, 'dist-before');
    cpSync(beforeDist, copiedBefore, { recursive: true });
  }
  return { dir, beforeDist: copiedBefore };
}
