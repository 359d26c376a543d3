import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Proves every rule of .dependency-cruiser.cjs: for each rule a minimal file tree that breaks it is planted in a
 * temporary folder inside the repository (so npm packages resolve from its node_modules and its package.json tells
 * dependencies from devDependencies), cruised like `depcruise src --config .dependency-cruiser.cjs` run in that
 * folder, and must report exactly the planted violations. A compliant tree must report nothing.
 */
const ROOT = path.resolve(__dirname, '../..');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const RUNNER = path.join(__dirname, 'cruise.mjs');

/** A planted file tree: path relative to the tree's root → file content. */
type Tree = Record<string, string>;
/** An expected violation: [rule, from, to]; npm targets as `npm:<package>`, folders as their path. */
type Expected = [rule: string, from: string, to: string];
interface Case {
  /** The rule this case proves (undefined: the compliant tree). */
  rule?: string;
  title: string;
  tree: Tree;
  expected: Expected[];
}

const imports = (...specifiers: string[]): string =>
  specifiers.map((specifier, i) => `import * as m${i} from '${specifier}';\n`).join('') +
  `export const uses = [${specifiers.map((_, i) => `m${i}`).join(', ')}];\n`;
const leaf = 'export const value = 1;\n';

const CASES: Case[] = [
  {
    title: 'a compliant tree reports nothing',
    tree: {
      'src/main.ts': imports('./app.module', './bootstrap/http-app'),
      'src/worker.ts': imports('./app.module', './modules/orders/orders.processor'),
      'src/app.module.ts': imports(
        './modules/orders/orders.module',
        './platform/database/database.module',
        './platform/auth/auth.module',
      ),
      'src/bootstrap/http-app.ts': imports('../app.module', '../platform/openapi/openapi', 'fastify'),
      'src/platform/openapi/openapi.ts': imports('@nestjs/swagger', '../problem/problem'),
      'src/platform/problem/problem.ts': leaf,
      'src/platform/http/conditional-requests.ts': imports('node:crypto'),
      'src/platform/auth/auth.module.ts': imports('@nestjs/common', './caller'),
      'src/platform/auth/caller.ts': leaf,
      'src/platform/database/database.module.ts': imports('typeorm', '../../modules/orders/order.entity'), // may list entities
      'src/platform/types/untyped-package.d.ts': "declare module 'untyped-package';\n", // .d.ts: never an orphan
      'src/modules/orders/orders.module.ts': imports(
        './orders.controller',
        './orders.service',
        './order.repository',
      ),
      'src/modules/orders/orders.controller.ts': imports(
        '@nestjs/common',
        './orders.service',
        './dto/create-order.dto',
        './order.view',
        '../../platform/auth/caller',
      ),
      'src/modules/orders/dto/create-order.dto.ts': imports('class-validator'),
      'src/modules/orders/order.view.ts': imports('./order.entity', './domain/order-status'),
      'src/modules/orders/orders.service.ts': imports(
        './order.repository',
        './domain/order-status',
        '../../platform/http/conditional-requests', // the platform's src/platform/http/ is not a module's HTTP layer
        '../products/products.service', // other modules' services are fine
        '../../platform/problem/problem',
      ),
      'src/modules/orders/orders.processor.ts': imports('bullmq', './orders.service'),
      'src/modules/orders/orders.service.spec.ts': imports('@nestjs/testing', './orders.service'), // specs may use devDeps
      'src/modules/orders/order.repository.ts': imports(
        'typeorm',
        './order.entity',
        './persistence/order.mapper',
      ),
      'src/modules/orders/persistence/order.mapper.ts': imports('../order.entity'),
      'src/modules/orders/order.entity.ts': imports('typeorm'),
      'src/modules/orders/domain/order-status.ts': imports('node:crypto', './order-rules'),
      'src/modules/orders/domain/order-rules.ts': leaf,
      'src/modules/products/products.service.ts': imports('./product.entity'),
      'src/modules/products/product.entity.ts': imports('typeorm'),
    },
    expected: [],
  },
  {
    rule: 'no-circular',
    title: 'two files importing each other',
    tree: {
      'src/modules/orders/a.ts': imports('./b'),
      'src/modules/orders/b.ts': imports('./a'),
    },
    expected: [['no-circular', 'src/modules/orders/a.ts', 'src/modules/orders/b.ts']], // a cycle is reported once
  },
  {
    rule: 'no-folder-cycles',
    title: 'two folders importing each other without a file cycle',
    tree: {
      'src/platform/auth/a.ts': imports('../http/b'),
      'src/platform/http/b.ts': leaf,
      'src/platform/http/c.ts': imports('../auth/d'),
      'src/platform/auth/d.ts': leaf,
    },
    expected: [
      ['no-folder-cycles', 'src/platform/auth', 'src/platform/http'],
      ['no-folder-cycles', 'src/platform/http', 'src/platform/auth'],
    ],
  },
  {
    rule: 'no-folder-cycles',
    title:
      'a folder cycle through the root files: src/modules/orders → src/platform/openapi → src/app.module.ts → src/modules/orders',
    tree: {
      'src/app.module.ts': imports('./modules/orders/orders.module'),
      'src/modules/orders/orders.module.ts': imports('./orders.controller'),
      'src/modules/orders/orders.controller.ts': imports('../../platform/openapi/api-endpoint'),
      'src/platform/openapi/api-endpoint.ts': leaf,
      'src/platform/openapi/offline-document.ts': imports('../../app.module'),
    },
    expected: [['no-folder-cycles', 'src/platform/openapi/offline-document.ts', 'src/app.module.ts']],
  },
  {
    rule: 'no-orphans',
    title: 'a file nothing imports and that imports nothing (.d.ts and specs exempt)',
    tree: {
      'src/platform/auth/lonely.ts': leaf,
      'src/platform/auth/ambient.d.ts': 'declare const BUILD_ID: string;\n',
      'src/platform/auth/standalone.spec.ts': "it('runs', () => undefined);\n",
    },
    expected: [['no-orphans', 'src/platform/auth/lonely.ts', 'src/platform/auth/lonely.ts']],
  },
  {
    rule: 'domain-is-pure',
    title: 'domain code importing a framework package, a type-only package import, and a non-domain file',
    tree: {
      'src/modules/orders/orders.service.ts': imports(
        './domain/order-state-machine',
        './domain/order-status',
      ),
      'src/modules/orders/order.entity.ts': leaf,
      'src/modules/orders/domain/order-state-machine.ts': imports(
        '@nestjs/common',
        './order-status',
        'node:crypto',
      ),
      'src/modules/orders/domain/order-status.ts':
        "import type { Repository } from 'typeorm';\nimport { value } from '../order.entity';\n" +
        'export type Statuses = Repository<object>;\nexport const status = value;\n',
    },
    expected: [
      ['domain-is-pure', 'src/modules/orders/domain/order-state-machine.ts', 'npm:@nestjs/common'],
      ['domain-is-pure', 'src/modules/orders/domain/order-status.ts', 'npm:typeorm'],
      ['domain-is-pure', 'src/modules/orders/domain/order-status.ts', 'src/modules/orders/order.entity.ts'],
    ],
  },
  {
    rule: 'persistence-is-private',
    title: "another module importing a module's entity, repository and persistence/ file",
    tree: {
      'src/app.module.ts': imports(
        './modules/orders/order.repository',
        './platform/database/database.module',
      ),
      'src/platform/database/database.module.ts': imports(
        '../../modules/orders/order.entity',
        '../../modules/products/product.entity',
      ),
      'src/modules/orders/order.repository.ts': imports('./order.entity', './persistence/order.mapper'),
      'src/modules/orders/order.entity.ts': leaf,
      'src/modules/orders/persistence/order.mapper.ts': leaf,
      'src/modules/products/product.entity.ts': leaf,
      'src/modules/products/products.service.ts': imports(
        '../orders/order.entity',
        '../orders/order.repository',
      ),
      'src/modules/users/users.service.ts': imports('../orders/persistence/order.mapper'),
    },
    expected: [
      [
        'persistence-is-private',
        'src/modules/products/products.service.ts',
        'src/modules/orders/order.entity.ts',
      ],
      [
        'persistence-is-private',
        'src/modules/products/products.service.ts',
        'src/modules/orders/order.repository.ts',
      ],
      [
        'persistence-is-private',
        'src/modules/users/users.service.ts',
        'src/modules/orders/persistence/order.mapper.ts',
      ],
    ],
  },
  {
    rule: 'persistence-and-services-below-http',
    title: 'services, processors, entities and repositories importing controllers, DTOs, views and http/',
    tree: {
      'src/modules/orders/orders.controller.ts': leaf,
      'src/modules/orders/dto/create-order.ts': leaf,
      'src/modules/orders/order-response.dto.ts': leaf,
      'src/modules/orders/order.view.ts': leaf,
      'src/modules/orders/http/order-links.ts': leaf,
      'src/modules/orders/orders.service.ts': imports('./dto/create-order', './order.view'),
      'src/modules/orders/orders.processor.ts': imports('./order-response.dto'),
      'src/modules/orders/order.entity.ts': imports('./http/order-links'),
      'src/modules/orders/order.repository.ts': imports('./orders.controller', './order.entity'),
    },
    expected: [
      [
        'persistence-and-services-below-http',
        'src/modules/orders/orders.service.ts',
        'src/modules/orders/dto/create-order.ts',
      ],
      [
        'persistence-and-services-below-http',
        'src/modules/orders/orders.service.ts',
        'src/modules/orders/order.view.ts',
      ],
      [
        'persistence-and-services-below-http',
        'src/modules/orders/orders.processor.ts',
        'src/modules/orders/order-response.dto.ts',
      ],
      [
        'persistence-and-services-below-http',
        'src/modules/orders/order.entity.ts',
        'src/modules/orders/http/order-links.ts',
      ],
      [
        'persistence-and-services-below-http',
        'src/modules/orders/order.repository.ts',
        'src/modules/orders/orders.controller.ts',
      ],
    ],
  },
  {
    rule: 'cross-cutting-below-domain-modules',
    title: 'cross-cutting folders importing domain modules (src/platform/database only their entities)',
    tree: {
      'src/platform/auth/just-in-time-user.guard.ts': imports('../../modules/users/users.service'),
      'src/modules/users/users.service.ts': leaf,
      'src/platform/openapi/components.ts': imports('../../modules/orders/dto/order.dto'),
      'src/modules/orders/dto/order.dto.ts': leaf,
      'src/platform/database/database.module.ts': imports(
        '../../modules/orders/order.entity',
        '../../modules/orders/orders.service',
      ),
      'src/modules/orders/order.entity.ts': leaf,
      'src/modules/orders/orders.service.ts': leaf,
    },
    expected: [
      [
        'cross-cutting-below-domain-modules',
        'src/platform/auth/just-in-time-user.guard.ts',
        'src/modules/users/users.service.ts',
      ],
      [
        'cross-cutting-below-domain-modules',
        'src/platform/openapi/components.ts',
        'src/modules/orders/dto/order.dto.ts',
      ],
      [
        'cross-cutting-below-domain-modules',
        'src/platform/database/database.module.ts',
        'src/modules/orders/orders.service.ts',
      ],
    ],
  },
  {
    rule: 'not-to-test',
    title: 'production code importing test code (a spec beside it may)',
    tree: {
      'src/modules/orders/orders.service.ts': imports('../../../test/support/tokens'),
      'src/modules/orders/orders.service.spec.ts': imports('../../../test/support/wait', './orders.service'),
      'test/support/tokens.ts': leaf,
      'test/support/wait.ts': leaf,
    },
    expected: [['not-to-test', 'src/modules/orders/orders.service.ts', 'test/support/tokens.ts']],
  },
  {
    rule: 'not-to-dev-dependencies',
    title: 'production code importing a devDependency (a spec may)',
    tree: {
      'src/modules/orders/orders.module.ts': imports('@nestjs/testing'),
      'src/modules/orders/orders.module.spec.ts': imports('@nestjs/testing', './orders.module'),
    },
    expected: [['not-to-dev-dependencies', 'src/modules/orders/orders.module.ts', 'npm:@nestjs/testing']],
  },
  {
    rule: 'client-is-its-own-package',
    title:
      'the client importing the service and a package it does not declare (its own declared one is fine)',
    tree: {
      'client/package.json': JSON.stringify({ name: 'client', dependencies: { 'openapi-fetch': '0.17.0' } }),
      'client/src/index.ts': imports(
        './calls',
        '../../src/platform/problem/error-codes',
        'openapi-fetch',
        'fastify',
      ),
      'client/src/calls.ts': leaf,
      'src/platform/problem/error-codes.ts': leaf,
    },
    expected: [
      ['client-is-its-own-package', 'client/src/index.ts', 'src/platform/problem/error-codes.ts'],
      ['client-is-its-own-package', 'client/src/index.ts', 'npm:fastify'],
    ],
  },
  {
    rule: 'client-runs-in-browsers',
    title: 'the client importing a Node core module',
    tree: {
      'client/package.json': JSON.stringify({ name: 'client' }),
      'client/src/index.ts': imports('node:crypto', './calls'),
      'client/src/calls.ts': leaf,
    },
    expected: [['client-runs-in-browsers', 'client/src/index.ts', 'crypto']],
  },
  {
    rule: 'not-to-unresolvable',
    title: 'imports of a missing file and of a package that is not installed',
    tree: {
      'src/modules/orders/orders.service.ts': imports('./order-missing', 'no-such-package-installed'),
    },
    expected: [
      ['not-to-unresolvable', 'src/modules/orders/orders.service.ts', './order-missing'],
      ['not-to-unresolvable', 'src/modules/orders/orders.service.ts', 'no-such-package-installed'],
    ],
  },
];

interface Violation {
  rule: string;
  from: string;
  to: string;
  type: string;
}
interface CruiseOutput {
  rules: string[];
  results: Record<string, { modules: string[]; violations: Violation[] }>;
}

/** npm targets resolve to machine-dependent paths (…/node_modules/@nestjs/common/index.js): keep the package. */
function normalize({ rule, from, to }: Violation): Expected {
  const npmPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(to);
  return [rule, from, npmPackage ? `npm:${npmPackage[1]}` : to];
}

const sorted = (violations: Expected[]): Expected[] =>
  [...violations].sort((a, b) => a.join('\0').localeCompare(b.join('\0')));

describe('dependency rules (.dependency-cruiser.cjs)', () => {
  let plantedRoot: string;
  let output: CruiseOutput;
  const caseDirectory = (index: number): string => path.join(plantedRoot, `case-${index}`);

  beforeAll(() => {
    plantedRoot = fs.mkdtempSync(path.join(__dirname, '.planted-'));
    CASES.forEach((testCase, index) => {
      const directory = caseDirectory(index);
      const files: Tree = {
        // The planted tree resolves like the repository: same compiler options, only its own sources.
        'tsconfig.json': JSON.stringify({
          extends: path.relative(directory, path.join(ROOT, 'tsconfig.json')).split(path.sep).join('/'),
          include: ['src', 'client/src'],
        }),
        ...testCase.tree,
      };
      for (const [file, content] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(directory, file)), { recursive: true });
        fs.writeFileSync(path.join(directory, file), content);
      }
    });
    // One process for all trees (and the real src/): see cruise.mjs.
    const directories = [ROOT, ...CASES.map((_, index) => caseDirectory(index))];
    output = JSON.parse(
      execFileSync(process.execPath, [RUNNER, CONFIG, ...directories], {
        cwd: ROOT,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      }),
    ) as CruiseOutput;
  });

  afterAll(() => {
    if (plantedRoot) fs.rmSync(plantedRoot, { recursive: true, force: true });
  });

  it('has a planted violation for every rule of the config', () => {
    const proven = new Set(CASES.flatMap((testCase) => (testCase.rule ? [testCase.rule] : [])));
    expect([...proven].sort()).toEqual([...output.rules].sort());
    expect(output.rules).toEqual(
      expect.arrayContaining([
        'no-circular',
        'no-folder-cycles',
        'no-orphans',
        'domain-is-pure',
        'persistence-is-private',
        'persistence-and-services-below-http',
        'cross-cutting-below-domain-modules',
        'not-to-test',
        'not-to-dev-dependencies',
        'not-to-unresolvable',
        'client-is-its-own-package',
        'client-runs-in-browsers',
      ]),
    );
  });

  it.each(CASES.map((testCase, index) => [testCase.rule ?? 'compliant', testCase.title, index] as const))(
    '%s: %s',
    (_rule, _title, index) => {
      const { violations } = output.results[caseDirectory(index)];
      expect(sorted(violations.map(normalize))).toEqual(sorted(CASES[index].expected));
    },
  );

  it('the real src/ and client/src/ keep every rule', () => {
    const { modules, violations } = output.results[ROOT];
    expect(modules).toEqual(
      expect.arrayContaining(['src/main.ts', 'src/bootstrap/app.module.ts', 'src/worker.ts']),
    );
    expect(modules.filter((source) => source.startsWith('src/')).length).toBeGreaterThan(100);
    expect(modules).toEqual(expect.arrayContaining(['client/src/index.ts', 'client/src/client.ts']));
    expect(violations).toEqual([]);
  });
});
