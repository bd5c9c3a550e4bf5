#!/usr/bin/env bash
# The README's demo command: Node.js 24 and the dependencies if needed, then `npm run demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-deps.sh
exec npm run --silent demo -- "$@"
