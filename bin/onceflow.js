#!/usr/bin/env node
// `npx onceflow …`: runs the TypeScript entry directly through tsx's CommonJS hook, so the
// CLI needs no build step (the repo runs every entry point with tsx).
'use strict';
/* global require, process */
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS shim has no imports */
require('tsx/cjs');
const { runCli } = require('../src/ops/main.ts');

runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`onceflow: ${String(err)}\n`);
    process.exit(1);
  },
);
