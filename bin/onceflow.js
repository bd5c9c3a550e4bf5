#!/usr/bin/env node
// `npx onceflow …`: runs the TypeScript entry directly through tsx's CommonJS hook, so the
// CLI needs no build step (the repo runs every entry point with tsx). Started by a Node older
// than the project's (a machine whose own Node is 20), it runs itself again on the Node 24
// scripts/ensure-node.sh installed into the state folder, when there is one.
'use strict';
/* global require, process, __dirname, __filename */
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS shim has no imports */
const { existsSync } = require('node:fs');
const { join, resolve } = require('node:path');

const NEEDED_MAJOR = 24;
const stateDir = process.env.ONCEFLOW_STATE_DIR || resolve(__dirname, '..', '.onceflow');
const projectNode = join(stateDir, 'node', 'current', 'bin', 'node');
if (Number(process.versions.node.split('.')[0]) < NEEDED_MAJOR && existsSync(projectNode)) {
  const { spawnSync } = require('node:child_process');
  const run = spawnSync(projectNode, [__filename, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(run.status ?? 1);
}

require('tsx/cjs');
const { runCli } = require('../src/ops/main.ts');

runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`onceflow: ${String(err)}\n`);
    process.exit(1);
  },
);
