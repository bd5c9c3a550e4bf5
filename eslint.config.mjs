// ESLint flat config. Type-aware rules (no-floating-promises) need the TS program, hence
// projectService. Workflow code runs in Temporal's deterministic sandbox: Node built-ins
// (and the modules that wrap I/O) are banned there so a mistake fails lint, not a replay.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = builtinModules.flatMap((m) => [m, `node:${m}`]);

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.onceflow/**', 'artifacts/**', 'eslint.config.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: {
        // bin/onceflow.js is a plain CommonJS shim outside tsconfig (it loads tsx, then the TS
        // entry); the default project lets it be linted like the rest.
        projectService: { allowDefaultProject: ['bin/*.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['src/workflows/**/*.ts', 'src/domains/*/workflows/**/*.ts', 'src/workflow.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...nodeBuiltins.map((name) => ({
              name,
              message: 'Workflow code must be deterministic: no Node built-ins.',
            })),
            { name: 'pg', message: 'Workflow code does no I/O; use an activity.' },
            { name: 'kafkajs', message: 'Workflow code does no I/O; use an activity.' },
            { name: '@temporalio/client', message: 'Use @temporalio/workflow in workflow code.' },
            { name: '@temporalio/worker', message: 'Use @temporalio/workflow in workflow code.' },
            { name: '@temporalio/activity', message: 'Use @temporalio/workflow in workflow code.' },
          ],
        },
      ],
    },
  },
);
