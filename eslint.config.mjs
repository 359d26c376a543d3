import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'client/dist/**',
      // Generated from the OpenAPI document (npm run client:generate); a test keeps it current.
      'client/src/generated/**',
      'bench/results/**',
      'node_modules/**',
      '.data/**',
      'coverage/**',
      'test/architecture/.planted-*/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { globals: { ...globals.node, ...globals.jest } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error', 'warn'] }],
    },
  },
  {
    // One way to run SQL (docs/architecture.md, "Running SQL"): reads through Sql, writes through the Tx that
    // Transactions hands out, both in src/platform/database/. TypeORM's DataSource, EntityManager, query runners and
    // repositories, and pg itself, would run statements around it (a write outside any transaction among them).
    // Entities describe tables with TypeORM's decorators; modules register them with TypeOrmModule.forFeature.
    files: ['src/**/*.ts'],
    ignores: ['src/platform/database/**', 'src/**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'typeorm',
              message:
                'SQL runs through Sql (reads) and the Tx of Transactions.run (writes): src/platform/database/.',
            },
            {
              name: 'pg',
              message:
                'SQL runs through Sql (reads) and the Tx of Transactions.run (writes): src/platform/database/.',
            },
            {
              name: '@nestjs/typeorm',
              importNames: ['InjectRepository', 'InjectDataSource', 'InjectEntityManager'],
              message:
                'SQL runs through Sql (reads) and the Tx of Transactions.run (writes): src/platform/database/.',
            },
          ],
          patterns: [
            {
              group: ['typeorm/*', 'pg/*', 'pg-*'],
              message:
                'SQL runs through Sql (reads) and the Tx of Transactions.run (writes): src/platform/database/.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/**/*.entity.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['scripts/**', 'bench/**'],
    rules: { 'no-console': 'off' },
  },
);
