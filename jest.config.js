/** Unit specs sit beside the code; e2e specs under test/ boot the real app on real PostgreSQL/Redis. */
const transform = {
  // The client package's sources are ES modules: they run as CommonJS here like the rest.
  '^.+/client/src/.+\\.ts$': '<rootDir>/test/support/client-sources-transform.cjs',
  '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
};
/**
 * Tests use the client package (client/) from its sources, compiled like the rest: the package name leads
 * to its entry, and its ES-module imports name the compiled `.js` files of sibling `.ts` sources.
 */
const moduleNameMapper = {
  '^@order-service/client$': '<rootDir>/client/src/index.ts',
  '^(\\.{1,2}/.*)\\.js$': '$1',
};

// Jest's cache in the checkout, not in /tmp: a run leaves nothing outside the clone but what it says.
const cacheDirectory = '<rootDir>/node_modules/.cache/jest';

module.exports = {
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      cacheDirectory,
      transform,
      moduleNameMapper,
      testMatch: [
        '<rootDir>/src/**/*.spec.ts',
        '<rootDir>/test/client/**/*.spec.ts',
        '<rootDir>/migrations/**/*.spec.ts',
        '<rootDir>/test/architecture/**/*.spec.ts',
        '<rootDir>/test/deploy/**/*.spec.ts',
      ],
      // Trees the dependency-rules spec plants (and removes) may hold *.spec.ts files: never run them.
      testPathIgnorePatterns: ['/node_modules/', '/\\.planted-'],
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      cacheDirectory,
      transform,
      moduleNameMapper,
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      slowTestThreshold: 20,
    },
  ],
  // A guard against a hung test, not a bound on speed: no test or hook has a time limit of its own, since load
  // stretches every duration (a busy machine made a 25,000-order seed take two minutes). Tests wait for
  // conditions (test/support/wait.ts); this only ends one whose condition never comes, so a run cannot hang.
  testTimeout: 10 * 60 * 1000,
  cacheDirectory,
};
