/**
 * Dependency rules of the Order Service, checked by dependency-cruiser (`npm run lint:deps`, part of `npm run lint`).
 * Every rule is proven by a planted violation in test/architecture/dependency-rules.spec.ts.
 *
 * Paths are relative to the working directory (the repository root), e.g. `src/modules/orders/orders.service.ts`. The
 * client package's sources (client/src/) are cruised too, under their own rules.
 *
 * Target architecture, shown by the layout of src/ (test/architecture/source-layout.spec.ts keeps it to these):
 * - domain modules, the business capabilities: src/modules/<module>/;
 * - the platform they stand on, cross-cutting mechanisms that never know a domain module: src/platform/<folder>/;
 * - composition roots: src/bootstrap/** (app.module, the HTTP app, the OpenAPI document builder), and the entry
 *   points src/main.ts and src/worker.ts (may import anything);
 * - layers inside a module, told apart by file name (see the patterns below); `*.module.ts` wires its own layers.
 */

const IN_DOMAIN_MODULE = '^src/modules/';
const IN_CROSS_CUTTING = '^src/platform/';

/*
 * Layer patterns. dependency-cruiser refuses regular expressions with nested quantifiers (safe-regex), hence the
 * flat `.*` / `.+` forms and the lists (a list matches when one of its patterns does).
 */
/** Domain layer: anything under a `domain/` folder of a module. */
const DOMAIN = '^src/.+/domain/';
/** Persistence layer: entities, repositories and anything under a `persistence/` folder. */
const PERSISTENCE = [
  '^src/(?:modules|platform)/[^/]+/.*\\.(?:entity|repository)\\.ts$',
  '^src/.+/persistence/',
];
/** Application layer: services and queue processors. */
const APPLICATION = '^src/(?:modules|platform)/[^/]+/.*\\.(?:service|processor)\\.ts$';
/**
 * HTTP layer: controllers, DTOs, views, and anything under a `dto/` or `http/` folder *of a module* (`.+` needs a
 * module folder first, so the cross-cutting folder src/platform/http/ itself is not a module's HTTP layer).
 */
const HTTP = [
  '^src/(?:modules|platform)/[^/]+/.*\\.(?:controller|dto|view)\\.ts$',
  '^src/(?:modules|platform)/.+/(?:dto|http)/',
];

/** Files that are legitimately nobody's dependency and depend on nothing. */
const NOT_ORPHANS = [
  '\\.d\\.ts$', // ambient type declarations
  '\\.spec\\.ts$', // tests are entry points
  '(?:^|/)[^/]*\\.config\\.(?:js|cjs|mjs|ts|json)$', // tool configs (jest.config.js, …)
  '(?:^|/)\\.[^/]+\\.(?:js|cjs|mjs|json)$', // dot-configs (.dependency-cruiser.cjs, …)
  '(?:^|/)tsconfig[^/]*\\.json$',
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'A file must not reach itself through its imports: cycles break load order and make modules inseparable.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      comment:
        'Folders depend one way: a cycle between two folders (even without a file cycle) fuses them into one.',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      // scope 'folder' counts the folder `src` as the whole tree, so it cannot see a cycle that runs through the
      // root files (src/modules/orders -> src/platform/openapi -> src/main.ts -> src/modules/orders). The root files are entry points that
      // import every folder, so any import of one from a subfolder closes such a cycle.
      name: 'no-folder-cycles',
      comment: 'Folders depend one way: a file in a src/ subfolder never imports a root file (main, worker).',
      severity: 'error',
      from: { path: '^src/[^/]+/', pathNot: '^src/bootstrap/' },
      to: { path: '^src/[^/]+\\.ts$' },
    },
    {
      name: 'no-orphans',
      comment: 'A file nothing imports and that imports nothing is dead code (or a missing import).',
      severity: 'error',
      from: { orphan: true, path: '^src/', pathNot: NOT_ORPHANS },
      to: {},
    },
    {
      name: 'domain-is-pure',
      comment:
        'Domain code (src/<module>/domain/) imports only Node core modules and other domain code: no framework, no DB.',
      severity: 'error',
      from: { path: DOMAIN },
      to: { dependencyTypesNot: ['core'], pathNot: DOMAIN },
    },
    {
      name: 'persistence-is-private',
      comment:
        "A module's entities/repositories are used only inside src/<module>/ (and by src/platform/database/).",
      severity: 'error',
      from: { path: '^src/((?:modules|platform)/[^/]+)/', pathNot: '^src/platform/database/' },
      to: { path: PERSISTENCE, pathNot: '^src/$1/' },
    },
    {
      name: 'persistence-and-services-below-http',
      comment:
        'Persistence, domain and services/processors never import the HTTP layer (controllers, DTOs, views).',
      severity: 'error',
      from: { path: [...PERSISTENCE, DOMAIN, APPLICATION] },
      to: { path: HTTP },
    },
    {
      name: 'cross-cutting-below-domain-modules',
      comment:
        'Cross-cutting folders (auth, http, problem, …) never import a domain module (orders, products, …).',
      severity: 'error',
      from: { path: IN_CROSS_CUTTING, pathNot: '^src/platform/database/' },
      to: { path: IN_DOMAIN_MODULE },
    },
    {
      // src/platform/database/ may list entities (see persistence-is-private), but nothing else of a domain module.
      name: 'cross-cutting-below-domain-modules',
      comment:
        'Cross-cutting folders (auth, http, problem, …) never import a domain module (orders, products, …).',
      severity: 'error',
      from: { path: '^src/platform/database/' },
      to: { path: IN_DOMAIN_MODULE, pathNot: PERSISTENCE },
    },
    {
      name: 'not-to-test',
      comment: 'Production code never imports test code (test/); a spec beside it may (the wait helper).',
      severity: 'error',
      from: { path: '^src/', pathNot: '\\.spec\\.ts$' },
      to: { path: '^test/' },
    },
    {
      name: 'not-to-dev-dependencies',
      comment:
        'Production code imports only runtime dependencies: devDependencies are absent in the production image.',
      severity: 'error',
      from: { path: '^src/', pathNot: '\\.spec\\.ts$' },
      to: { dependencyTypes: ['npm-dev'], pathNot: 'node_modules/@types/' },
    },
    {
      name: 'client-is-its-own-package',
      comment:
        'The client (client/) is a package of its own: it imports its own files and the packages its package.json ' +
        'declares, never the service, its tests or scripts.',
      severity: 'error',
      from: { path: '^client/src/' },
      to: { pathNot: '^client/src/', dependencyTypesNot: ['npm', 'core'] },
    },
    {
      name: 'client-runs-in-browsers',
      comment: 'The client runs in browsers as well as on Node: it imports no Node core module.',
      severity: 'error',
      from: { path: '^client/src/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves to a file or an installed package.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // Record imports of npm packages (to classify them) but do not cruise inside them.
    doNotFollow: { path: 'node_modules' },
    // Build output and local data. NOT node_modules: `exclude` drops the dependencies on excluded modules too, which
    // would blind domain-is-pure and not-to-dev-dependencies (doNotFollow above already keeps the cruise out of it).
    exclude: { path: '^(?:dist|\\.data|coverage)/' },
    // Type-only imports count: domain code importing a framework type is still coupled to it.
    tsPreCompilationDeps: true,
    // Resolve like the TypeScript compiler does (paths, extensions).
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    skipAnalysisNotInRules: true,
  },
};
