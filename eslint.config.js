import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import sqlLayout from './lint/sql-layout.js';
import openingLine from './lint/opening-line.js';
import sqlHome from './lint/sql-home.js';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '.data/',
      'bench/results/',
      'bench/tmp/',
      'chaos/results/',
      '.scratch/',
      'sdk/dist/',
      'sdk/src/openapi.ts', // generated
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // the merchant portal's browser modules (src/portal/assets): the browser globals they use
    files: ['src/portal/assets/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          'addEventListener',
          'Blob',
          'clearInterval',
          'crypto',
          'dispatchEvent',
          'document',
          'Event',
          'fetch',
          'location',
          'navigator',
          'removeEventListener',
          'sessionStorage',
          'setInterval',
          'setTimeout',
          'URL',
          'URLSearchParams',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { local: { rules: { 'sql-layout': sqlLayout } } },
    rules: { 'local/sql-layout': 'error' },
  },
  {
    // every TypeScript file of the service opens with a line saying what it is for
    files: ['src/**/*.ts', 'apps/**/*.ts', 'scripts/**/*.ts'],
    plugins: { opening: { rules: { 'opening-line': openingLine } } },
    rules: { 'opening/opening-line': 'error' },
  },
  {
    // one SQL dialect: statements only in *.sql.ts, run only through the handles of these files
    files: ['src/**/*.ts', 'apps/**/*.ts', 'scripts/**/*.ts'],
    // not the service's data: the test runner's and the development database's administration of a server
    ignores: ['**/*.test.ts', 'scripts/test.ts', 'src/dev-db/**'],
    plugins: { sql: { rules: { home: sqlHome } } },
    rules: {
      'sql/home': [
        'error',
        {
          handles: ['src/platform/sql.ts', 'src/platform/pg.ts', 'src/platform/boss-db.ts', 'src/platform/prepared.ts'],
        },
      ],
    },
  },
);
