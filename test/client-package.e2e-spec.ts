import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { runtimeImports } from './client/runtime-imports';
import { bootTestApp, listenOnFreePort, TestApp } from './support/test-app';
import { bearer } from './support/tokens';

const ROOT = path.resolve(__dirname, '..');
const CLIENT = path.join(ROOT, 'client');
/** The consumer's own TypeScript: the repository's, used as a project that installed the package would. */
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const run = promisify(execFile);

/** A client application's code: right, it compiles and runs against the service. */
const RIGHT = `import { createOrderServiceClient, ProblemError } from '@order-service/client';

export async function run(baseUrl: string, token: string): Promise<Record<string, unknown>> {
  const client = createOrderServiceClient({ baseUrl, token, language: 'en' });
  const product = await client.products.create({ name: 'Packaged kettle', price: 10, stock: 5 });
  const created = await client.orders.create({ items: [{ productId: product.productId, quantity: 2 }] });
  const confirmed = await client.orders.confirm(created.orderId);
  let problem = 'none';
  try {
    await client.orders.confirm(created.orderId);
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error;
    problem = error.code;
  }
  const again = await client.POST('/api/v1/orders/{orderId}/confirm', { params: { path: { orderId: created.orderId } } });
  let listed = false;
  for await (const order of client.orders.all({ status: ['CONFIRMED'] })) {
    if (order.orderId === created.orderId) listed = true;
  }
  return { status: confirmed.status, total: created.totalAmount, problem, typed: again.error?.code, listed };
}
`;

/** The same with fields misused: a quantity given as text, and a misspelt field in each call style. */
const WRONG = RIGHT.replace('quantity: 2', "quantity: '2'")
  .replace('price: 10, stock: 5 }', "price: 10, stock: 5, colour: 'red' }")
  .replace(
    "client.POST('/api/v1/orders/{orderId}/confirm', { params: { path: { orderId: created.orderId } } })",
    "client.POST('/api/v1/orders/{orderId}/cancel', { params: { path: { orderId: created.orderId } }, body: { reasn: 'x' } })",
  );

/**
 * The TypeScript settings the client's README names as supported: each compiles a consumer of the package.
 * `types: []` and the DOM library, as a browser project has them, or Node's types and no DOM, as a Node project.
 */
const SETTINGS: Record<string, Record<string, unknown>> = {
  'nodenext, DOM library': {
    module: 'nodenext',
    moduleResolution: 'nodenext',
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    types: [],
  },
  'node16, DOM library': {
    module: 'node16',
    moduleResolution: 'node16',
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    types: [],
  },
  'bundler, DOM library': {
    module: 'esnext',
    moduleResolution: 'bundler',
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    types: [],
  },
  'preserve (bundler), DOM library': {
    module: 'preserve',
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    types: [],
  },
  'nodenext, @types/node and no DOM': {
    module: 'nodenext',
    moduleResolution: 'nodenext',
    lib: ['ES2022'],
    types: ['node'],
    typeRoots: [path.join(ROOT, 'node_modules', '@types')],
  },
};

/**
 * @order-service/client as a client application gets it: \`npm pack\`, installed from the tarball into a project
 * of its own (Node's and the DOM's types only as a browser project has them), compiled by that project's
 * TypeScript, and run against the service.
 */
describe('the @order-service/client package', () => {
  let t: TestApp;
  let project: string;
  let tarball: string;
  let packed: string[];

  beforeAll(async () => {
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'client-package-'));
    // `prepack` builds the package; the lifecycle's own lines come before the JSON.
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', project], { cwd: CLIENT });
    const [result] = JSON.parse(stdout.slice(stdout.indexOf('\n[') + 1)) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    tarball = path.join(project, result.filename);
    packed = result.files.map((file) => file.path);

    const files: Record<string, string> = {
      'package.json': JSON.stringify({ name: 'a-client-application', private: true, type: 'module' }),
      'tsconfig.json': JSON.stringify({
        compilerOptions: {
          ...SETTINGS['nodenext, DOM library'],
          target: 'ES2022',
          strict: true,
          outDir: 'out',
        },
        files: ['right.ts'],
      }),
      ...Object.fromEntries(
        Object.values(SETTINGS).map((options, index) => [
          `tsconfig.setting-${index}.json`,
          JSON.stringify({
            // The package's declarations are checked in full by tsconfig.json's compile; here, how they resolve.
            compilerOptions: { ...options, target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true },
            files: ['right.ts'],
          }),
        ]),
      ),
      'tsconfig.wrong.json': JSON.stringify({
        extends: './tsconfig.json',
        compilerOptions: { noEmit: true },
        files: ['wrong.ts'],
      }),
      'right.ts': RIGHT,
      'wrong.ts': WRONG,
      'main.mjs':
        "const { run } = await import('./out/right.js');\n" +
        'console.log(JSON.stringify(await run(process.argv[2], process.argv[3])));\n',
    };
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(project, name), text);
    // The package's dependencies come from npm's cache when it has them (the root install filled it).
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: project });

    t = await bootTestApp();
    // Packing builds the package, and the install unpacks it: minutes on a busy machine.
  }, 300_000);
  afterAll(async () => {
    await t?.close();
    if (project) fs.rmSync(project, { recursive: true, force: true });
  });

  it('npm pack gives ES modules with type declarations, and the README; no tests', () => {
    expect(packed).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/generated/openapi.d.ts',
        'dist/webhooks.js',
      ]),
    );
    expect(packed.filter((file) => !/^(dist|src)\/|^package\.json$|^README\.md$/.test(file))).toEqual([]);
    const manifest = JSON.parse(
      fs.readFileSync(path.join(project, 'node_modules', '@order-service', 'client', 'package.json'), 'utf8'),
    ) as { type: string; exports: Record<string, unknown> };
    expect(manifest).toMatchObject({
      type: 'module',
      exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
    });
  });

  it('loads no Node module on the way a browser bundler resolves it', () => {
    const entry = path.join(project, 'node_modules', '@order-service', 'client', 'dist', 'index.js');
    const imports = runtimeImports(entry, project);
    expect(imports.nodeModules).toEqual([]);
    expect(imports.unresolved).toEqual([]);
    // It did follow the dependencies, down to the webhook library's own.
    expect(imports.files).toEqual(
      expect.arrayContaining([
        'node_modules/openapi-fetch/dist/index.mjs',
        'node_modules/standardwebhooks/dist/index.js',
        'node_modules/fast-sha256/sha256.js',
      ]),
    );
  });

  it('a misused or misspelt field does not compile, in either call style', async () => {
    const compiled = await run(process.execPath, [TSC, '-p', 'tsconfig.wrong.json'], { cwd: project }).then(
      () => ({ code: 0, stdout: '' }),
      (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
    );
    expect(compiled.code).not.toBe(0);
    expect(compiled.stdout).toMatch(
      /wrong\.ts\(\d+,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/,
    );
    expect(compiled.stdout).toMatch(/wrong\.ts\(\d+,\d+\): error TS2353: .*'colour' does not exist/);
    expect(compiled.stdout).toMatch(/wrong\.ts\(\d+,\d+\): error TS2561: .*'reasn' does not exist/);
  }, 300_000);

  it.each(Object.keys(SETTINGS).map((name, index) => [name, index] as const))(
    'a consumer compiles with the supported setting %s',
    async (_, index) => {
      const compiled = await run(process.execPath, [TSC, '-p', `tsconfig.setting-${index}.json`], {
        cwd: project,
      }).then(
        () => '',
        (error: { stdout: string }) => error.stdout,
      );
      expect(compiled).toBe('');
    },
    // A compile of the generated types takes a while on a busy machine.
    300_000,
  );

  it('the right code compiles and runs against the service', async () => {
    await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: project });
    const baseUrl = await listenOnFreePort(t);
    const token = (await bearer(t.config, ['ADMIN'])).replace(/^Bearer /, '');
    const { stdout } = await run(process.execPath, ['main.mjs', baseUrl, token], { cwd: project });
    expect(JSON.parse(stdout)).toEqual({
      status: 'CONFIRMED',
      total: 20,
      problem: 'INVALID_ORDER_STATE',
      typed: 'INVALID_ORDER_STATE',
      listed: true,
    });
  }, 300_000);
});
