/** Unit specs sit beside the code; e2e specs under test/ boot the real app on real PostgreSQL/Redis. */
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] };

module.exports = {
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform,
      testMatch: [
        '<rootDir>/src/**/*.spec.ts',
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
      transform,
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.mjs',
      globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
      slowTestThreshold: 20,
    },
  ],
  testTimeout: 60000,
};
