#!/usr/bin/env bash
# Installs the npm dependencies when they are missing or older than package-lock.json.
# Everything else (Temporal, Kafka, PostgreSQL) is installed by the dev stack on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "onceflow needs Node.js 20 or newer with npm on PATH" >&2
  exit 1
fi
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
