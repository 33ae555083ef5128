// ESLint (flat config) with typescript-eslint: `npm run lint`, run by .ci/run after the build.
// The recommended rule sets, no `any` outside the protocol layer's generic plumbing, no unused
// variables. No stylistic rules: formatting is not what this checks.
// Not type-aware: the typed rules cost a whole type-check per run (a minute on two cores) and
// found nothing tsc --strict misses here but node:test's unawaited test()/describe() calls.
import js from '@eslint/js'
import { defineConfig } from 'eslint/config'
import tseslint from 'typescript-eslint'

// Node's globals, for the plain JavaScript files (scripts/, bench/); TypeScript files get them from @types/node.
const nodeGlobals = Object.fromEntries([
  'process', 'console', 'Buffer', 'URL', 'performance', 'setTimeout', 'clearTimeout', 'setInterval',
  'clearInterval', 'setImmediate', 'queueMicrotask', 'AbortController', 'structuredClone', 'require', 'module', '__dirname'
].map(name => [name, 'readonly']))

export default defineConfig(
  { ignores: ['dist/', 'node_modules/', 'bench/node_modules/', 'bench/results/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: nodeGlobals },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      // `_name` marks a parameter a callback's signature needs but the body does not use (as tsconfig's noUnusedParameters).
      '@typescript-eslint/no-unused-vars': ['error', { args: 'after-used', argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // An empty catch says "this failure does not matter here" (cleanup, best-effort probes).
      'no-empty': ['error', { allowEmptyCatch: true }]
    }
  },
  {
    // The protocol layer's generic plumbing: code over every API's request and response types.
    // An Api takes its request and response as encoder arguments, so Api<ProduceRequest, …> is
    // not an Api<unknown, unknown>; these files name "an API of any types" with `any`.
    //   api.ts          AnyApi, the alias the rest of the code uses for tables of APIs
    //   header.ts       frames any API's request or response
    //   schema.ts       the schema codec: compiles encoders/decoders for values of any struct
    //   apis/index.ts   the table of every API
    files: ['protocol/api.ts', 'protocol/header.ts', 'protocol/schema.ts', 'protocol/apis/index.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' }
  }
)
