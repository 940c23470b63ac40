#!/usr/bin/env bash
# Builds rdsm and runs the whole test suite: unit tests and multi-process
# tests on the regular build (GCC, the default configuration), the unit
# tests, a quick subset of the multi-process tests and the mpi fabric's
# tests (on one host and across emulated hosts) on a Release build with
# Clang and -DRDSM_MPI=ON, then the multi-process tests again on an
# AddressSanitizer + UndefinedBehaviorSanitizer build.
# Warnings are errors in every build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/deps.sh" --mpi
jobs=$(nproc)
# Each stage says when it starts (seconds since the start): CI has a budget.
stage() { echo "== $1 (at ${SECONDS} s)"; }

stage "build (RelWithDebInfo)"
"$root/tools/build.sh" "$root/build"
stage "tests"
ctest --test-dir "$root/build" --output-on-failure -j "$jobs"

stage "build (Release, Clang, with the mpi fabric; what its tests need)"
# One build serves the second compiler and the mpi fabric: the regular
# build above is the default configuration, without MPI.
clang_dir=$root/build-clang
cmake -S "$root" -B "$clang_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRDSM_WERROR=ON -DRDSM_MPI=ON \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
clang_log=$(mktemp)
if ! ninja -C "$clang_dir" rdsm rdsm_unit_tests mp_fail_node mp_misuse mp_trivial splash_every_macro \
     splash_alloc_first splash_shapes sor stress micro_fault mp_finalize_answers mpi_fetch_latency splash_lu \
     splash_fft splash_radix splash_ocean splash_water splash_globals >"$clang_log" 2>&1; then
  grep -v '^\[[0-9]*/[0-9]*\] ' "$clang_log" >&2
  exit 1
fi
rm -f "$clang_log"
stage "unit tests and quick multi-process tests (Clang)"
# The protocol models (label model) are checked by spin, whatever compiled rdsm: once, above.
ctest --test-dir "$clang_dir" --output-on-failure -j "$jobs" -LE 'mp|model'
ctest --test-dir "$clang_dir" --output-on-failure -j "$jobs" -L mp \
  -R '^(mp\.(usage|launcher_basic|fail_(segv|exit3)\.(rdsm|async|genima)|misuse_)|splash\.(every_macro\.(genima|hw)|alloc_first|shapes))'
stage "the mpi fabric across emulated hosts (network namespaces), and its failure cases"
ctest --test-dir "$clang_dir" --output-on-failure -j "$jobs" -L multihost
stage "the mpi fabric on one host: the correctness programs under mpirun and rdsm run"
# The stress of the one-sided presets through MPI RMA on one host (about
# 45 s each) is left out: the tests across emulated hosts run that path.
ctest --test-dir "$clang_dir" --output-on-failure -j "$jobs" \
  -R '^((stress|sor)\.[a-z]+\.mpi\.n[24]|(stress\.async|sor\.[a-z]+)\.mpi-rma\.n[24]|launcher\.mpi\..*)$'
# One at a time: a test that checks for files left in /dev/shm would take
# another test's Open MPI shared-memory segments for its own.
ctest --test-dir "$clang_dir" --output-on-failure -j 1 -R '^mpi\.(rank_killed|rank_stopped\..*|stats|bench|finalize_answers\..*|fork_join\..*)$'

stage "build (ASan + UBSan)"
# -O1 with line tables only: the sanitizers' reports keep their file:line
# stacks, and the build takes a third less time than -O2 -g.
"$root/tools/build.sh" "$root/build-sanitize" -DRDSM_SANITIZE=ON -DRDSM_UNIT_TESTS=OFF \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG"
stage "multi-process tests under sanitizers (the applications, the bad-input catalogue and the timing checks run on the regular build only)"
# rdsm handles SIGSEGV and SIGBUS itself (page faults are its coherence
# mechanism: SIGSEGV under the mprotect memory backend, SIGBUS under uffd).
export ASAN_OPTIONS=handle_segv=0:handle_sigbus=0:allow_user_segv_handler=1:detect_leaks=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# A node silent for the hang timeout is called hung.  The default (3 s) is
# tight for sanitized processes sharing two CPUs with another test's: a
# worker of splash.every_macro was once called hung there.  The tests of
# hang detection set their own timeouts.
# The tools' own tests (bench, microbench and its report, sim, install) drive binaries the
# other tests cover and spend their time in Python, and the race reports of
# the applications run applications: not here.
RDSM_HANG_TIMEOUT=10 ctest --test-dir "$root/build-sanitize" --output-on-failure -j "$jobs" -L mp -LE 'apps|bad_inputs|timing' \
  -E '^(mp\.(sim|bench_.*|microbench_.*|report_microbench|races_apps\..*)|install\.consume)$'

stage "done"
