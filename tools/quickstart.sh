#!/usr/bin/env bash
# From a fresh machine: installs what is missing, builds, and runs the main
# job — red-black SOR on 4 nodes over the single-host shm fabric, which
# verifies itself against a sequential run and prints the time breakdown.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/deps.sh"
echo "rdsm: building into build/" >&2
"$root/tools/build.sh" "$root/build"
exec "$root/build/rdsm" run -n 4 "$root/build/apps/sor" -m 1024 -n 1024 -i 20
