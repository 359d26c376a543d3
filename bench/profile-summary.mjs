// node bench/profile-summary.mjs <file.cpuprofile> [top] [skip seconds] — where a CPU profile's samples go: self time by
// function and by package (node_modules/<name>, node: internals, the service's own dist/ files), and the
// inclusive time of the frames a request passes through. Used to find where a request's CPU goes.
import { readFileSync } from 'node:fs';

const [file, topArg, skipArg] = process.argv.slice(2);
const top = Number(topArg ?? 25);
// Samples of the first `skip` seconds (start-up, before the load) are left out.
const skipMicros = Number(skipArg ?? 0) * 1e6;
const profile = JSON.parse(readFileSync(file, 'utf8'));
{
  let t = 0;
  const kept = [];
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i];
    if (t >= skipMicros) kept.push(id);
  });
  profile.samples = kept;
}
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const selfCount = new Map();
for (const id of profile.samples) selfCount.set(id, (selfCount.get(id) ?? 0) + 1);
const total = profile.samples.length;
const idle = [...selfCount]
  .filter(([id]) => nodes.get(id).callFrame.functionName === '(idle)')
  .reduce((a, [, c]) => a + c, 0);
const busy = total - idle;

function packageOf(url) {
  if (!url) return '(native)';
  const m = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const d = /\/dist\/src\/([^/]+)/.exec(url);
  if (d) return `service:${d[1]}`;
  return url.split('/').slice(-2).join('/');
}
const label = (n) =>
  `${n.callFrame.functionName || '(anonymous)'} ${packageOf(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

const byFunction = new Map();
const byPackage = new Map();
for (const [id, count] of selfCount) {
  const n = nodes.get(id);
  if (n.callFrame.functionName === '(idle)') continue;
  byFunction.set(label(n), (byFunction.get(label(n)) ?? 0) + count);
  const pkg = packageOf(n.callFrame.url);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + count);
}
// Inclusive: every distinct frame label on a sample's stack counts once.
const inclusive = new Map();
for (const [id, count] of selfCount) {
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const l = label(nodes.get(cur));
    if (seen.has(l)) continue;
    seen.add(l);
    inclusive.set(l, (inclusive.get(l) ?? 0) + count);
  }
}
const pct = (c) => `${((100 * c) / busy).toFixed(1).padStart(5)} %`;
const print = (title, map, n = top) => {
  console.log(`\n${title}`);
  for (const [k, c] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`${pct(c)}  ${k}`);
};
console.log(`${busy} busy samples of ${total} (${((100 * idle) / total).toFixed(0)} % idle)`);
print('self time by package', byPackage);
print('self time by function', byFunction);
print('inclusive time (service frames)', new Map([...inclusive].filter(([k]) => / service:/.test(k))), top);

// Inclusive by package: samples with at least one frame of the package on the stack.
const inclusivePackage = new Map();
for (const [id, count] of selfCount) {
  if (nodes.get(id).callFrame.functionName === '(idle)') continue;
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur))
    seen.add(packageOf(nodes.get(cur).callFrame.url));
  for (const pkg of seen) inclusivePackage.set(pkg, (inclusivePackage.get(pkg) ?? 0) + count);
}
print('inclusive time by package', inclusivePackage, top);
