#!/usr/bin/env bash
# Makes sure the Debian packages rdsm builds and tests with are installed.
# As root it installs what is missing with apt-get; otherwise it names the
# packages and the command to install them, and fails.
# With --mpi it also wants Open MPI, for builds with -DRDSM_MPI=ON, and
# iproute2 for their tests across emulated hosts (network namespaces); with
# --mpich, MPICH instead of Open MPI (docs/clusters.md says how to build
# with it; Debian keeps Open MPI as mpicc and mpirun when both are there).
set -euo pipefail

packages=(cmake ninja-build g++ clang libgtest-dev python3 python3-matplotlib procps m4 pkg-config spin)
for arg in "$@"; do
  case "$arg" in
    --mpi) packages+=(libopenmpi-dev openmpi-bin iproute2) ;;
    --mpich) packages+=(libmpich-dev mpich iproute2) ;;
    *) echo "usage: $0 [--mpi] [--mpich]" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "rdsm: these Debian packages are missing: ${missing[*]}" >&2
  echo "rdsm: install them with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "rdsm: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
