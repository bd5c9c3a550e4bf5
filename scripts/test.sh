#!/usr/bin/env bash
# The README's test command: dependencies if needed, then `npm test` (which starts the stack).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
exec npm test --silent -- "$@"
