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
    // Behind a transaction pooler only what a transaction sets for itself holds
    // (docs/decisions/0065-behind-a-transaction-pooler.md): a statement outside a transaction runs through
    // PooledStatements, which gives it a transaction with the service's settings; TypeORM's DataSource and
    // repositories would run it bare.
    files: ['src/**/*.ts'],
    ignores: ['src/database/**', 'src/**/*.spec.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "MemberExpression:matches([object.name='dataSource'], [object.property.name='dataSource'])[property.name=/^(query|manager|getRepository|createQueryBuilder|createQueryRunner)$/]",
          message:
            'A statement outside a transaction goes through PooledStatements (src/database/pooled-statements.ts); in one, through the EntityManager of dataSource.transaction().',
        },
      ],
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@nestjs/typeorm',
              importNames: ['InjectRepository'],
              message:
                "A repository's statements outside a transaction would run bare: write SQL through PooledStatements.",
            },
          ],
        },
      ],
    },
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
