#!/usr/bin/env bash
# Builds rdsm and runs the whole test suite: unit tests and multi-process
# tests on the regular build (GCC, RelWithDebInfo, the default
# configuration), then on an AddressSanitizer + UndefinedBehaviorSanitizer
# build with Clang (the second compiler) and with the mpi fabric: the
# multi-process tests, and the mpi fabric's tests on one host and across
# emulated hosts.  Warnings are errors in every build.
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

stage "build (Clang, ASan + UBSan, with the mpi fabric)"
# -O1 with line tables only: the sanitizers' reports keep their file:line
# stacks, and the build takes a third less time than -O2 -g.  One build
# serves the second compiler, the sanitizers and the mpi fabric (which the
# regular build, the default configuration, leaves out).  The unit tests
# are the regular build's: here they would add a fifth to the build's time.
san=$root/build-sanitize
"$root/tools/build.sh" "$san" -DRDSM_SANITIZE=ON -DRDSM_MPI=ON -DRDSM_UNIT_TESTS=OFF \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG"
# rdsm handles SIGSEGV and SIGBUS itself (page faults are its coherence
# mechanism: SIGSEGV under the mprotect memory backend, SIGBUS under uffd).
export ASAN_OPTIONS=handle_segv=0:handle_sigbus=0:allow_user_segv_handler=1:detect_leaks=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
stage "multi-process tests under sanitizers (the applications, the bad-input catalogue and the timing checks run on the regular build only)"
# The tools' own tests (bench, microbench and its report, sim, install) drive binaries the
# other tests cover and spend their time in Python, and the race reports of
# the applications run applications: not here.  A node silent for the
# hang timeout is called hung.  The default (3 s) is tight for sanitized
# processes sharing two CPUs with another test's: a worker of
# splash.every_macro was once called hung there.  The tests of hang
# detection set their own timeouts (but not those of the mpi fabric's
# across hosts, which expect the default).
RDSM_HANG_TIMEOUT=10 ctest --test-dir "$san" --output-on-failure -j "$jobs" -L mp -LE 'apps|bad_inputs|timing|mpi' \
  -E '^(mp\.(sim|bench_.*|microbench_.*|report_microbench|races_apps\..*)|install\.consume)$'
stage "the mpi fabric across emulated hosts (network namespaces), and its failure cases, under sanitizers"
ctest --test-dir "$san" --output-on-failure -j "$jobs" -L multihost
stage "the mpi fabric on one host, under sanitizers: the correctness programs under mpirun and rdsm run"
# The stress of the one-sided presets through MPI RMA on one host (about
# 45 s each) is left out: the tests across emulated hosts run that path.
ctest --test-dir "$san" --output-on-failure -j "$jobs" \
  -R '^((stress|sor)\.[a-z]+\.mpi\.n[24]|(stress\.async|sor\.[a-z]+)\.mpi-rma\.n[24]|launcher\.mpi\..*)$'
# One at a time: a test that checks for files left in /dev/shm would take
# another test's Open MPI shared-memory segments for its own.
ctest --test-dir "$san" --output-on-failure -j 1 -R '^mpi\.(rank_killed|rank_stopped\..*|stats|bench|finalize_answers\..*|fork_join\..*)$'

stage "done"
