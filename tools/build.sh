#!/usr/bin/env bash
# Configures and builds rdsm into build/ (or $1), with extra CMake args after it;
# warnings are errors here (RDSM_WERROR), as in CI.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build}
shift || true
cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRDSM_WERROR=ON "$@" >/dev/null
# Quiet when it works; the compiler's messages when it does not.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! ninja -C "$dir" >"$log" 2>&1; then
  grep -v '^\[[0-9]*/[0-9]*\] ' "$log" >&2
  exit 1
fi
