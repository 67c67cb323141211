import js from '@eslint/js';
import prettier from 'eslint-config-prettier/flat';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const nativeAndMain = (from) => ({
  paths: [
    { name: 'electron', message: `${from} must not import electron` },
    { name: 'better-sqlite3', message: `${from} must not touch the store` },
  ],
  patterns: [
    { group: ['drizzle-orm', 'drizzle-orm/*'], message: `${from} must not touch the store` },
    { group: ['**/main/**', '**/main'], message: `${from} must not import src/main` },
  ],
});

export default tseslint.config(
  {
    ignores: [
      'out/**',
      'dist/**',
      'node_modules/**',
      'src/main/service/db/migrations/**',
      'test-results/**',
      'playwright-report/**',
      'tmp/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Layout is Prettier's (npm run format); ESLint keeps to code.
  prettier,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': ['error', nativeAndMain('the renderer')],
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', nativeAndMain('the shared contract')] },
  },
  {
    files: ['src/main/service/**/*.ts'],
    ignores: ['src/main/service/engine/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'electron', message: 'the service runs under plain Node; only src/main/index.ts knows Electron' },
            {
              name: 'node:worker_threads',
              message: 'threads live in the engine room: call ctx.engine (src/main/service/engine/README.md)',
            },
          ],
          patterns: [
            {
              group: ['**/engine/*', '!**/engine/index'],
              message: 'the engine room is used through its interface, engine/index.ts (ctx.engine)',
            },
          ],
        },
      ],
    },
  },
  {
    // The engine room reaches its own parts and runs threads.
    files: ['src/main/service/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'electron', message: 'the service runs under plain Node; only src/main/index.ts knows Electron' }] },
      ],
    },
  },
);
