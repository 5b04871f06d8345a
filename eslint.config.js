// Lint rules of the project; why each boundary exists: docs/architecture.md ("Guardrails").
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * The renderer and the CLI see the service only through its packages: the contract
 * (@box/contract) and the service's entry points named in package.json "imports"
 * (#image-builder, #mcp-stdio); never a path into src-server/ or packages/.
 */
const onlyContract = {
  patterns: [
    {
      regex: '(^|/)(src-server|packages)/',
      message:
        'The renderer and the CLI import the service only through @box/contract/* and the package.json "imports" entry points (docs/architecture.md, "Shared contract").',
    },
  ],
};

/** The environment is read in src-server/platform/settings.ts only (its table lists every variable). */
const envReads = [
  {
    selector: "MemberExpression[object.type='MemberExpression'][object.object.name='process'][object.property.name='env']",
    message:
      'Read settings from src-server/platform/settings.ts (ENV_SETTINGS, boxEnv(), ServiceConfig.env), not process.env (docs/architecture.md, "Settings").',
  },
  {
    selector: "VariableDeclarator[init.object.name='process'][init.property.name='env']",
    message: 'Read settings from src-server/platform/settings.ts, not process.env (docs/architecture.md, "Settings").',
  },
];

export default tseslint.config(
  {
    ignores: [
      'out/**',
      'node_modules/**',
      '.data/**',
      'dist/**',
      'sdk/typescript/dist/**',
      'sdk/typescript/build/**',
      'resources/**',
      'test-results/**',
      'playwright-report/**',
      // generated from E2B's specifications by scripts/gen-e2b-types.mjs
      'src-server/areas/e2b/envd/gen/**',
      'packages/contract/src/e2b-openapi.gen.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      // An unawaited promise loses its error: mark deliberate fire-and-forget with `void`.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      // Route specs are generic over their schemas; `any` there is deliberate.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      'no-empty': ['error', { allowEmptyCatch: true }],
      'no-control-regex': 'off',
    },
  },
  {
    files: ['src-renderer/**/*.{ts,tsx}', 'src-cli/**/*.ts', 'sdk/typescript/src/**/*.ts'],
    ignores: ['**/*.test.ts', 'src-cli/test-support/cli.ts'],
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: { 'no-restricted-imports': ['error', onlyContract] },
  },
  {
    // Route handlers go through their area's service: the handler's `app` (RouteApp) has no
    // database nor repositories, and this stops reaching one through a service's field.
    files: ['src-server/**/*-routes.ts', 'src-server/**/routes.ts', 'src-server/**/routes/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'MemberExpression[property.name=/^(repo|repos|db)$/]',
          message: 'Route files go through their area service, never a repository or the database (docs/architecture.md, "Adding an endpoint").',
        },
        ...envReads,
      ],
    },
  },
  {
    // Routes are declared in route files only, so the two rules above see every handler.
    files: ['src-server/**/*.ts'],
    ignores: ['**/*.test.ts', 'src-server/**/*-routes.ts', 'src-server/**/routes.ts', 'src-server/**/routes/**/*.ts', 'src-server/test-support/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='add'] > ObjectExpression > Property[key.name='handler']",
          message: 'Declare routes in the area\'s `*-routes.ts` file (docs/architecture.md, "Adding an endpoint"), not here.',
        },
        ...envReads,
      ],
    },
  },
  {
    // The settings table reads the environment; test helpers may set it up.
    files: ['src-server/platform/settings.ts', 'src-server/**/test-support/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='add'] > ObjectExpression > Property[key.name='handler']",
          message: 'Declare routes in the area\'s `*-routes.ts` file (docs/architecture.md, "Adding an endpoint"), not here.',
        },
      ],
    },
  },
  {
    // Files stay small (issue 13: no file over 300 lines in src-server/ and packages/), counted raw.
    files: ['src-server/**/*.ts', 'packages/*/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'max-lines': ['error', { max: 300, skipBlankLines: false, skipComments: false }] },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { ...globals.node } },
  },
);
