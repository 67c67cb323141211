import js from '@eslint/js';
import prettier from 'eslint-config-prettier/flat';
import boundaries from 'eslint-plugin-boundaries';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/*
 * The layers (the design rules of docs/architecture.md: 1, 3, 5, 6, 7 and 10). ESLint keeps one set of
 * options per rule for a file, the last block that matches it, so each block below lists every
 * restriction its files are under, put together from these pieces.
 */
const restrict = (...pieces) => [
  'error',
  { paths: pieces.flatMap((p) => p.paths ?? []), patterns: pieces.flatMap((p) => p.patterns ?? []) },
];

const outsideMain = (from) => ({
  paths: [
    { name: 'electron', message: `${from} must not import electron (docs/architecture.md, rule 7)` },
    { name: 'better-sqlite3', message: `${from} must not touch the store (docs/architecture.md, rule 7)` },
    { name: 'pg', message: `${from} must not touch the store (docs/architecture.md, rule 7)` },
  ],
  patterns: [
    { group: ['drizzle-orm', 'drizzle-orm/*'], message: `${from} must not touch the store (docs/architecture.md, rule 7)` },
    { group: ['**/main/**', '**/main'], message: `${from} must not import src/main (docs/architecture.md, rule 7)` },
  ],
});

const ONE_WAY_OUT = 'the renderer has one way out (docs/architecture.md, rule 6)';
const oneWayOut = {
  patterns: [
    {
      group: ['**/api/*', '!**/api/index'],
      message: `${ONE_WAY_OUT}: import from src/renderer/src/api/ (its index), not from its transport`,
    },
    {
      group: ['**/preload', '**/preload/*'],
      message: `${ONE_WAY_OUT}: window.nps is reached through src/renderer/src/api/ only`,
    },
  ],
};

const serviceNoElectron = {
  paths: [
    {
      name: 'electron',
      message: 'the service runs under plain Node; only src/main/index.ts knows Electron (docs/architecture.md, rule 1)',
    },
  ],
};

const engineClosed = {
  paths: [
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
};

const STORE =
  "only db/, a domain's repository.ts (or *-repository.ts) and engine/ touch SQL (docs/architecture.md, rule 5): put this in the repository";
const store = {
  paths: [
    { name: 'better-sqlite3', message: STORE },
    { name: 'pg', message: STORE },
  ],
  patterns: [{ group: ['drizzle-orm', 'drizzle-orm/*'], message: STORE }],
};

const NO_DOOR =
  'domains reach neither Fastify nor http/ (docs/architecture.md, rule 10): the door imports the domains, not the other way; move what both need below (e.g. service/json/)';
const noDoor = {
  patterns: [{ group: ['fastify', 'fastify/*', '@fastify/*', '**/http', '**/http/*'], message: NO_DOOR }],
};

const TESTS = ['**/*.test.ts', '**/*.test-support.ts'];
const REPOSITORIES = ['**/repository.ts', '**/*-repository.ts'];
/** The domain folders, lowest first: a domain imports only those before it (the boundaries rule below). */
const DOMAINS = ['tables', 'reports', 'catalogue', 'keys', 'addresses', 'ledger', 'tickets', 'onchain', 'reconcile', 'app'];
const DOMAIN_FILES = [`src/main/service/{${DOMAINS.join(',')}}/**/*.ts`, 'src/main/service/json/**/*.ts'];

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
      'no-restricted-imports': restrict(outsideMain('the renderer')),
    },
  },
  {
    // Screens, components, stores and lib: calls go through api/, which alone knows the transport.
    files: ['src/renderer/**/*.{ts,tsx}'],
    ignores: ['src/renderer/src/api/**'],
    rules: {
      'no-restricted-imports': restrict(outsideMain('the renderer'), oneWayOut),
      'no-restricted-globals': [
        'error',
        ...['fetch', 'XMLHttpRequest', 'WebSocket', 'EventSource'].map((name) => ({
          name,
          message: `${ONE_WAY_OUT}: call the service through src/renderer/src/api/ (call(name, args))`,
        })),
      ],
      'no-restricted-properties': [
        'error',
        ...['window', 'globalThis', 'self'].flatMap((object) =>
          ['nps', 'fetch'].map((property) => ({
            object,
            property,
            message: `${ONE_WAY_OUT}: call the service through src/renderer/src/api/ (call(name, args))`,
          })),
        ),
      ],
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: { 'no-restricted-imports': restrict(outsideMain('the shared contract')) },
  },
  {
    // The Electron shell and the CLI: the store only through the service.
    files: ['src/main/**/*.ts'],
    ignores: ['src/main/service/**', ...TESTS],
    rules: { 'no-restricted-imports': restrict(store) },
  },
  {
    files: ['src/main/service/**/*.ts'],
    ignores: ['src/main/service/engine/**'],
    rules: { 'no-restricted-imports': restrict(serviceNoElectron, engineClosed, store) },
  },
  {
    // Where SQL may live: db/, repositories; and tests, which set up and inspect stores.
    files: ['src/main/service/db/**/*.ts', ...REPOSITORIES, ...TESTS],
    ignores: ['src/main/service/engine/**'],
    rules: { 'no-restricted-imports': restrict(serviceNoElectron, engineClosed) },
  },
  {
    // Domains (and the JSON helpers they share with the door). Their tests may drive the routes.
    files: DOMAIN_FILES,
    ignores: [...TESTS, ...REPOSITORIES],
    rules: { 'no-restricted-imports': restrict(serviceNoElectron, engineClosed, store, noDoor) },
  },
  {
    files: DOMAIN_FILES.flatMap((glob) => REPOSITORIES.map((name) => glob.replace('**/*.ts', name))),
    ignores: TESTS,
    rules: { 'no-restricted-imports': restrict(serviceNoElectron, engineClosed, noDoor) },
  },
  {
    // The engine room reaches its own parts and runs threads.
    files: ['src/main/service/engine/**/*.ts'],
    rules: { 'no-restricted-imports': restrict(serviceNoElectron) },
  },
  {
    // Domains do not import each other in circles (docs/architecture.md, rule 10). import-x/no-cycle follows files,
    // and two folders can import each other with no cycle between files, so the domains stand in one
    // order, DOMAINS, and each imports only those below it: a circle would need an import upwards.
    // A domain that needs a piece of a higher one moves that piece down.
    files: ['src/main/service/**/*.ts'],
    ignores: TESTS,
    plugins: { boundaries },
    settings: {
      'boundaries/elements': [{ type: 'domain', pattern: `src/main/service/{${DOMAINS.join(',')}}`, partialMatch: false }],
      'import/resolver': { node: { extensions: ['.ts'] } },
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'allow',
          policies: DOMAINS.map((domain, i) => ({
            from: { element: { type: 'domain', path: `src/main/service/${domain}` } },
            disallow: { to: { element: { type: 'domain', path: DOMAINS.slice(i + 1).map((d) => `src/main/service/${d}`) } } },
            message: `domains do not import each other in circles (docs/architecture.md, rule 10): ${domain}/ may import only the domains below it (${DOMAINS.slice(0, i).join(', ') || 'none'}; DOMAINS in eslint.config.js). Move the shared piece down (a repository or a pure function both use)`,
          })),
        },
      ],
    },
  },
);
