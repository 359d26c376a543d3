import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * A clone of the repository is all a reader has: every file a document or a comment cites must be in it.
 * Checks relative markdown links, `docs/…` paths in any text file, citations of documents that live outside
 * the repository, and that the decisions' index lists every record.
 */
const ROOT = path.resolve(__dirname, '../..');
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git', '.data', 'coverage', 'results', 'generated']);
const TEXT_FILE = /\.(md|ts|mts|cts|js|mjs|cjs|ya?ml|json|sh)$|^Dockerfile$|^run$|^smoke$/;

/** The repository's text files, relative to its root. */
function textFiles(dir = ROOT): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.planted-') || SKIPPED_DIRS.has(entry.name)) return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return textFiles(full);
    if (!TEXT_FILE.test(entry.name) || entry.name === 'package-lock.json') return [];
    return [path.relative(ROOT, full)];
  });
}

/** `target` of every `[text](target)` that is a path in the repository (no scheme, no bare anchor). */
export function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1])
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('#'))
    .map((target) => decodeURIComponent(target.replace(/[#?].*$/, '')))
    .filter((target) => target !== '');
}

/** `docs/…` paths in any text, not part of a longer path or URL (`/docs/openapi.json` is a route). */
export function docsPaths(text: string): string[] {
  return [...text.matchAll(/(?<![\w./@-])docs\/[\w.-]+(?:\/[\w.-]+)*\/?/g)].map((m) =>
    m[0].replace(/[.,:;]+$/, ''),
  );
}

/**
 * Paths into the repository's source folders (`src/modules/orders/`, `test/support/tokens.ts`), not part of a longer
 * path or URL, and not a pattern (`test/client*.e2e-spec.ts`) or a placeholder (`migrations/<name>.ts`).
 */
export function repositoryPaths(text: string): string[] {
  const folders = 'src|test|deploy|scripts|client|bench|migrations|i18n|spectral-functions|docs';
  return [...text.matchAll(new RegExp(`(?<![\\w./@<-])(?:${folders})/[\\w./-]*(?![\\w*<{])`, 'g'))].map((m) =>
    m[0].replace(/[.,:;]+$/, ''),
  );
}

/**
 * Paths documents name that are not committed: what the benches and builds write, and a worked example's new
 * files.
 */
const NAMED_BUT_NOT_COMMITTED = [
  /^bench\/results(\/|$)/,
  /^client\/dist(\/|$)/,
  // The tarball `npm run client:test` packs.
  /^client\/order-service-client/,
  /v3[-.]/,
];

/** Names of documents kept outside the repository, spelled so that this file does not cite them. */
const OUTSIDE = [['..', 'shared'].join('/'), ['PITFALLS', ''].join(''), ['STACK', 'md'].join('.')];
const OUTSIDE_DECISIONS = new RegExp(['DECISIONS', 'md'].join('\\.'));

describe('citations in docs and comments', () => {
  const files = textFiles().filter((file) => file !== path.relative(ROOT, __filename));
  const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

  it('finds the files it checks', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/architecture.md', 'src/main.ts']));
  });

  it('every relative markdown link names a file or folder of the repository', () => {
    const broken = files
      .filter((file) => file.endsWith('.md'))
      .flatMap((file) =>
        relativeLinks(read(file))
          .filter((target) => !fs.existsSync(path.resolve(ROOT, path.dirname(file), target)))
          .map((target) => `${file}: ${target}`),
      );
    expect(broken).toEqual([]);
  });

  it('every docs/… path in a document or a comment exists', () => {
    const missing = files.flatMap((file) =>
      docsPaths(read(file))
        .filter((cited) => !fs.existsSync(path.join(ROOT, cited)))
        .map((cited) => `${file}: ${cited}`),
    );
    expect(missing).toEqual([]);
  });

  it('nothing cites documents kept outside the repository', () => {
    const cited = files.flatMap((file) => {
      const text = read(file);
      const names = OUTSIDE.filter((name) => text.includes(name));
      if (OUTSIDE_DECISIONS.test(text)) names.push('the outside decisions page');
      return names.map((name) => `${file}: ${name}`);
    });
    expect(cited).toEqual([]);
  });

  it('every repository path a document names exists, and every npm script it runs', () => {
    const scripts = Object.keys(
      (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts,
    );
    const named = files
      .filter((file) => file.endsWith('.md'))
      .flatMap((file) => {
        const text = read(file);
        // A superseded decision tells what was: the files it names may be gone with it.
        const superseded = /^Status: Superseded/m.test(text);
        const paths = (superseded ? [] : repositoryPaths(text))
          .filter((cited) => !NAMED_BUT_NOT_COMMITTED.some((pattern) => pattern.test(cited)))
          .filter((cited) => !fs.existsSync(path.join(ROOT, cited)))
          .map((cited) => `${file}: ${cited}`);
        const commands = [...text.matchAll(/npm run (?:-s |--silent )?([\w:-]+)/g)]
          .map((m) => m[1])
          .filter((script) => !scripts.includes(script))
          .map((script) => `${file}: npm run ${script}`);
        return [...paths, ...commands];
      });
    expect(named).toEqual([]);
  });

  it('the decisions index lists every decision record, and only those', () => {
    const dir = path.join(ROOT, 'docs/decisions');
    const records = fs.readdirSync(dir).filter((name) => /^\d{4}-.+\.md$/.test(name));
    const indexed = relativeLinks(read('docs/decisions/README.md')).filter((target) =>
      /^\d{4}-.+\.md$/.test(target),
    );
    expect(records.length).toBeGreaterThan(90);
    expect([...new Set(indexed)].sort()).toEqual(records.sort());
  });

  describe('the checks themselves', () => {
    it('read links and paths as a reader would', () => {
      expect(
        relativeLinks('[a](../x.md#part) [b](https://e.org/y) [c](#here) [d](decisions/README.md "t")'),
      ).toEqual(['../x.md', 'decisions/README.md']);
      expect(
        docsPaths('see docs/api-guide.md, GET /docs/openapi.json, http://h/docs/x and docs/decisions/.'),
      ).toEqual(['docs/api-guide.md', 'docs/decisions/']);
    });
  });
});
