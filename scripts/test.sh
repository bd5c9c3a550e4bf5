#!/usr/bin/env bash
# The README's test command: Node.js 24 and the dependencies if needed, then `npm test` (which
# starts the stack).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-deps.sh
exec npm test --silent -- "$@"
