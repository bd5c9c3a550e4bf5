# Sourced by scripts/ensure-deps.sh and .ci/run (not run on its own): puts a Node.js 24 first on
# PATH. The machine's own Node is used when it is 24 or newer; otherwise the pinned Node 24 below
# is fetched once from the npm registry (package node-linux-<arch>, the official binary) with
# `npm pack`, its sha512 checked against the one pinned here, and unpacked into
# <state folder>/node/<version>/ (ONCEFLOW_STATE_DIR, default .onceflow/), which
# `<state folder>/node/current` points at. Everything started from this shell (npm, the stack,
# the tests, the demo) then runs on it, and bin/onceflow.js re-runs itself on it when `npx
# onceflow` is started by an older Node.

ONCEFLOW_NODE_MAJOR=24
ONCEFLOW_NODE_VERSION=24.21.0
# sha512 of node-linux-<arch>-24.21.0.tgz, as the registry's `dist.integrity` gives it.
ONCEFLOW_NODE_SHA512_X64=sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==
ONCEFLOW_NODE_SHA512_ARM64=sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g==

onceflow_node_major() { # the major version of the `node` on PATH, or 0
  local v
  v=$(node -p 'process.versions.node' 2>/dev/null) || {
    echo 0
    return
  }
  echo "${v%%.*}"
}

onceflow_install_node() { # dir: fetches, verifies and unpacks the pinned Node into dir
  local dir=$1 arch expected tmp tgz actual
  case "$(uname -m)" in
  x86_64) arch=x64 expected=$ONCEFLOW_NODE_SHA512_X64 ;;
  aarch64 | arm64) arch=arm64 expected=$ONCEFLOW_NODE_SHA512_ARM64 ;;
  *)
    echo "onceflow needs Node.js ${ONCEFLOW_NODE_MAJOR}; install it (no pinned build for $(uname -m))" >&2
    return 1
    ;;
  esac
  if ! command -v npm >/dev/null; then
    echo "onceflow needs Node.js ${ONCEFLOW_NODE_MAJOR}, or any Node.js with npm to fetch it" >&2
    return 1
  fi
  echo "installing Node.js ${ONCEFLOW_NODE_VERSION} (node-linux-${arch} from the npm registry) into ${dir}" >&2
  tmp=$(mktemp -d)
  if ! tgz=$(cd "$tmp" && npm pack --silent "node-linux-${arch}@${ONCEFLOW_NODE_VERSION}"); then
    rm -rf "$tmp"
    return 1
  fi
  # The older Node that ran npm hashes it: nothing else is assumed on the machine.
  actual="sha512-$(node -e 'process.stdout.write(require("crypto").createHash("sha512").update(require("fs").readFileSync(process.argv[1])).digest("base64"))' "$tmp/$tgz")"
  if [ "$actual" != "$expected" ]; then
    echo "node-linux-${arch}@${ONCEFLOW_NODE_VERSION}: checksum mismatch (got ${actual}, pinned ${expected})" >&2
    rm -rf "$tmp"
    return 1
  fi
  mkdir -p "$tmp/unpacked" && tar -xzf "$tmp/$tgz" -C "$tmp/unpacked" package/bin/node package/LICENSE
  rm -rf "$dir" && mkdir -p "$(dirname "$dir")" && mv "$tmp/unpacked/package" "$dir"
  rm -rf "$tmp"
}

onceflow_ensure_node() {
  [ "$(onceflow_node_major)" -ge "$ONCEFLOW_NODE_MAJOR" ] && return 0
  local root state dir
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  state=${ONCEFLOW_STATE_DIR:-$root/.onceflow}
  dir="$state/node/$ONCEFLOW_NODE_VERSION"
  if [ ! -x "$dir/bin/node" ]; then
    onceflow_install_node "$dir" || return 1
  fi
  ln -sfn "$ONCEFLOW_NODE_VERSION" "$state/node/current"
  export PATH="$dir/bin:$PATH"
}

onceflow_ensure_node
