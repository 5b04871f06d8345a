// Lint rules of the project; why each boundary exists: docs/architecture.md ("Guardrails").
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The renderer and the CLI see the service only through its shared contract. */
const onlyContract = {
  patterns: [
    {
      regex: '(^|/)src-server/(?!contract/)',
      message: 'The renderer and the CLI import only src-server/contract/** from the service (docs/architecture.md, "Shared contract").',
    },
  ],
};

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', '.data/**', 'dist/**', 'resources/**', 'test-results/**', 'playwright-report/**'] },
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
    files: ['src-renderer/**/*.{ts,tsx}', 'src-cli/**/*.ts'],
    ignores: ['**/*.test.ts', 'src-cli/test-cli.ts'],
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: { 'no-restricted-imports': ['error', onlyContract] },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { ...globals.node } },
  },
);
