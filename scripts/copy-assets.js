// tsc does not copy non-TS files: the i18n catalogues must travel with dist/. A file already there with the
// same bytes is left alone, so a build of a current dist/ writes nothing (a run beside may be reading it).
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const source = path.join(root, 'i18n');
const target = path.join(root, 'dist', 'i18n');

for (const entry of fs.readdirSync(source, { withFileTypes: true, recursive: true })) {
  if (!entry.isFile()) continue;
  const from = path.join(entry.parentPath, entry.name);
  const to = path.join(target, path.relative(source, from));
  const bytes = fs.readFileSync(from);
  if (fs.existsSync(to) && fs.readFileSync(to).equals(bytes)) continue;
  fs.mkdirSync(path.dirname(to), { recursive: true });
  // Written aside and renamed: a reader sees the old file or the new one, never half of it.
  fs.writeFileSync(`${to}.${process.pid}`, bytes);
  fs.renameSync(`${to}.${process.pid}`, to);
}
