#!/usr/bin/env bash
# The README's demo command: dependencies if needed, then `npm run demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
exec npm run --silent demo -- "$@"
