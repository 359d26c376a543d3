import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * src/ shows the architecture at a glance (docs/architecture.md, "Folders"): the two entry points the image and
 * the manifests run, the composition root, the domain modules and the platform they stand on. A new folder
 * belongs in one of the last two; the dependency rules tell them apart by these folders alone.
 */
const SRC = path.resolve(__dirname, '../../src');
const entries = (dir: string): string[] =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
    .sort();

describe('the layout of src/', () => {
  it('holds the entry points, the composition root, the domain modules and the platform, nothing else', () => {
    expect(entries(SRC)).toEqual(['bootstrap/', 'main.ts', 'modules/', 'platform/', 'worker.ts']);
  });

  it('holds folders only in modules/ and platform/, every domain module of one shape', () => {
    for (const group of ['modules', 'platform']) {
      expect(entries(path.join(SRC, group)).filter((name) => !name.endsWith('/'))).toEqual([]);
    }
    for (const module of entries(path.join(SRC, 'modules'))) {
      const inside = entries(path.join(SRC, 'modules', module));
      expect({
        module,
        layers: inside.filter((name) => ['http/', 'domain/', 'persistence/'].includes(name)),
      }).toEqual({ module, layers: ['domain/', 'http/', 'persistence/'] });
      expect({ module, moduleFile: inside.some((name) => name.endsWith('.module.ts')) }).toEqual({
        module,
        moduleFile: true,
      });
    }
  });
});
