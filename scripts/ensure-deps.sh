#!/usr/bin/env bash
# Sourced by the README's commands (scripts/demo.sh, scripts/test.sh): Node.js 24 first on PATH
# (scripts/ensure-node.sh installs the pinned one when the machine's is older), then the npm
# dependencies when they are missing or older than package-lock.json. Everything else
# (Temporal, Kafka, PostgreSQL, the schema registry) is installed by the dev stack on first use.
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
source scripts/ensure-node.sh || exit 1
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ] ||
  [ "$(cat node_modules/.onceflow-node 2>/dev/null)" != "$(node -p process.version)" ]; then
  npm ci --no-audit --no-fund || exit 1
  node -p process.version >node_modules/.onceflow-node
fi
