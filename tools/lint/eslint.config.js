// @ts-check
/**
 * The repository's ESLint configuration (eslint.config.js at the root loads it from here, where
 * its packages are installed). Type-aware rules of typescript-eslint over the three TypeScript
 * projects, and doc comments checked: eslint-plugin-jsdoc's rules for their tags, and
 * local/attached-doc-comment for a doc comment that documents nothing.
 *
 * Rules turned off or relaxed, and why, are commented where they are.
 */
import js from '@eslint/js'
import jsdoc from 'eslint-plugin-jsdoc'
import tseslint from 'typescript-eslint'
import { attachedDocComment } from './attached-doc-comment.js'

const root = new URL('../..', import.meta.url).pathname
/** The one refusal type, which may be thrown and rejected with beside Errors. */
const REFUSAL = { from: 'file', name: 'Refusal', path: 'src/http/refusal.ts' }

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      'data/**',
      '.build/**',
      'pglite-template/**',
      'test/fixtures/jsontestsuite/**',
      'docs/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        project: ['tsconfig.json', 'tsconfig.app.json', 'tsconfig.sw.json'],
        tsconfigRootDir: root,
      },
    },
    plugins: { jsdoc, local: { rules: { 'attached-doc-comment': attachedDocComment } } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'local/attached-doc-comment': 'error',
      // A `/*` comment holding @tags was meant as a doc comment.
      'jsdoc/no-bad-blocks': 'error',
      // @param names that match no parameter: a comment left above the wrong function.
      'jsdoc/check-param-names': ['error', { checkDestructured: false }],
      'jsdoc/check-tag-names': ['error', { definedTags: ['module'] }],
      'jsdoc/no-multi-asterisks': 'error',
      'jsdoc/check-alignment': 'error',
      // Underscore-prefixed names are parameters a signature must have but the body ignores.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // Promises handed to something that awaits them later (a test's `t.after`, `void`-ed
      // fire-and-forget) are explicit with `void`; route handlers may be async.
      '@typescript-eslint/no-misused-promises': [
        'error',
        { checksVoidReturn: { arguments: false, attributes: false } },
      ],
      // Types describe what postgres.js and JSON answer; `any` at those edges is narrowed at
      // once, and the rules below would flag every read of a row. The type checker's `strict`
      // and `noUncheckedIndexedAccess` do the work they would.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Template literals of numbers and of values with their own toString are the house style.
      '@typescript-eslint/restrict-template-expressions': 'off',
      // node:test's test() and describe() answer promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] },
          ],
        },
      ],
      // Objects here are made by factories whose methods are closures and never use `this`;
      // the rule takes every such method for one that does.
      '@typescript-eslint/unbound-method': 'off',
      // An async function without await still answers a promise, as the interface it implements
      // (a route handler, a store method) asks.
      '@typescript-eslint/require-await': 'off',
      // It flags every String() of an unknown value (a JSON answer's field, a rejection reason)
      // as a possible '[object Object]'; at those places the values are strings or Errors.
      '@typescript-eslint/no-base-to-string': 'off',
      // Control characters are what the header and text checks look for.
      'no-control-regex': 'off',
      // Only Errors are thrown, and the one refusal (src/http/refusal.ts): a check inside a
      // transaction throws its Refusal to roll it back, and the body reader rejects with one.
      // IndexedDB's failures are DOMExceptions; a caught value (unknown) may be passed on.
      '@typescript-eslint/only-throw-error': ['error', { allow: [REFUSAL] }],
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allow: [REFUSAL, { from: 'lib', name: 'DOMException' }], allowThrowingUnknown: true },
      ],
    },
  },
  {
    // Tests read JSON answers whose shape the assertions check.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Plain JavaScript (scripts/run.mjs, these configuration files): no type information.
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { project: false, projectService: false },
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly' },
    },
  },
  {
    // The command-line scripts are in no TypeScript project (npm run check skips them too).
    files: ['scripts/**/*.ts'],
    ...tseslint.configs.disableTypeChecked,
  },
)
